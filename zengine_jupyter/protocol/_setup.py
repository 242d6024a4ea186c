"""Provider setup: the requests the setup view sends (the panel's comm and the ``%zengine
setup`` widget speak the same ones) and what the kernel answers in ``Reply.setup`` /
``WidgetReply.setup``.

The flow: ``setup_state`` (what is configured now), ``setup_find_local`` (Ollama and LM Studio
on localhost), ``setup_models`` (the catalog's models for a provider, or a server's own list),
``setup_key`` (store a pasted key in auth.json: it travels kernel-ward only, and no answer
ever contains it), ``setup_test`` (one tiny request through the real client) and
``setup_save`` (write the choice to the user's ``settings.toml`` and reload open chats).
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, SecretStr

from zengine_jupyter.protocol._data_model import DataModel
from zengine_jupyter.protocol._wire_version import WIRE_VERSION, WireVersion

__all__ = [
    "KeyStatus",
    "LocalServer",
    "SetupAnswer",
    "SetupChoice",
    "SetupCurrent",
    "SetupFindLocal",
    "SetupKeyRequest",
    "SetupModel",
    "SetupModelsRequest",
    "SetupProvider",
    "SetupSaveRequest",
    "SetupSaved",
    "SetupStateRequest",
    "SetupTestRequest",
    "SetupTestResult",
]

SetupProvider = Literal["anthropic", "openai", "compatible", "local"]
"""Anthropic, OpenAI, any OpenAI-compatible URL, or a server found on this machine."""


class _Data(DataModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _SetupRequest(_Data):
    v: WireVersion = WIRE_VERSION
    id: str
    """Chosen by the view; the reply carries it back."""


class SetupChoice(_Data):
    """A provider and model as the view picked them."""

    provider: SetupProvider
    base_url: str | None = None
    """compatible and local: the server's OpenAI-compatible URL (``.../v1``); anthropic and
    openai: None for the public endpoint, or another endpoint of that format (a proxy)."""
    model: str


class SetupStateRequest(_SetupRequest):
    """What is configured now (answered in ``SetupAnswer.state``)."""

    kind: Literal["setup_state"] = "setup_state"


class SetupFindLocal(_SetupRequest):
    """Look for Ollama and LM Studio on localhost (``SetupAnswer.servers``)."""

    kind: Literal["setup_find_local"] = "setup_find_local"


class SetupModelsRequest(_SetupRequest):
    """The models to choose from (``SetupAnswer.models``): the catalog's for anthropic and
    openai, the server's ``/models`` list for a compatible or local URL."""

    kind: Literal["setup_models"] = "setup_models"
    provider: SetupProvider
    base_url: str | None = None


class SetupKeyRequest(_SetupRequest):
    """Store ``key`` in auth.json for the host the provider's endpoint is on."""

    kind: Literal["setup_key"] = "setup_key"
    provider: SetupProvider
    base_url: str | None = None
    key: SecretStr
    """Never echoed: the answer says only where it was stored (``SetupAnswer.key``)."""


class SetupTestRequest(_SetupRequest):
    """Send one tiny request to the chosen model (``SetupAnswer.test``)."""

    kind: Literal["setup_test"] = "setup_test"
    choice: SetupChoice


class SetupSaveRequest(_SetupRequest):
    """Write the choice to the user's settings.toml and reload open chats."""

    kind: Literal["setup_save"] = "setup_save"
    choice: SetupChoice


# ---------------------------------------------------------------- answers


class KeyStatus(_Data):
    """Whether a key is at hand for a host (never the key)."""

    host: str
    source: str | None = None
    """``auth.json`` or the environment variable it comes from; None: no key."""
    needed: bool = True
    """False for a server on this machine (it is called without a key)."""


class SetupCurrent(_Data):
    """What the chats use now."""

    configured: bool
    """False: nothing is set up (no key, no endpoint, no recording): the view offers itself."""
    problem: str | None = None
    """Why requests would fail right now (no key for the host, an invalid setting), if so."""
    hint: str | None = None
    provider: SetupProvider | Literal["replay"] | None = None
    base_url: str | None = None
    model: str | None = None
    key: KeyStatus | None = None
    recording: str | None = None
    """The cassette replayed instead of a live model, if any."""
    settings_path: str
    """The user's settings.toml, where a choice is written."""
    overrides: list[str] = []
    """Environment variables that beat settings.toml (``ZENGINE_MODEL``, ...)."""


class LocalServer(_Data):
    """One place a local server was looked for."""

    name: str
    """``Ollama`` or ``LM Studio``."""
    base_url: str
    """Its OpenAI-compatible URL (``http://localhost:11434/v1``)."""
    found: bool
    models: list[str] = []
    error: str | None = None
    """Why it was not found (nothing listening, a timeout, not that server)."""


class SetupModel(_Data):
    """A model to choose, with what the catalog knows (None: unknown)."""

    id: str
    context: int | None = None
    """Context window, tokens."""
    input_price: float | None = None
    """USD per 1M input tokens."""
    output_price: float | None = None


class SetupTestResult(_Data):
    ok: bool
    model: str
    answer: str = ""
    error: str | None = None
    """The provider's own words (status and message), when it failed."""
    hint: str | None = None
    seconds: float = 0.0


class SetupSaved(_Data):
    path: str
    """The settings.toml written."""
    text: str
    """What changed and where it applies, in words."""


class SetupAnswer(_Data):
    """The setup part of a reply: the field the request asked for is set."""

    state: SetupCurrent | None = None
    servers: list[LocalServer] | None = None
    models: list[SetupModel] | None = None
    models_note: str | None = None
    """Where the models come from, or why the list is short (no catalog yet, server error)."""
    key: KeyStatus | None = None
    test: SetupTestResult | None = None
    saved: SetupSaved | None = None
