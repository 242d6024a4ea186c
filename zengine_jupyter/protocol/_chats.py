"""The panel's chat controls over the ``zengine`` comm: the input footer and the chats list.

* ``chat_options`` -> :class:`ChatOptions` in ``Reply.options``: the chat's model and the
  models to choose from (the catalog's models of the chat's provider, or the local server's
  list), its permission mode and the modes it may switch to, its cost so far, and the
  provider's state (live, local, a cassette replay, nothing configured) for the empty and
  error states. Choosing a model or a mode is a ``command`` request (``/model X``,
  ``/mode Y``): the same path as typing it, so the log records the change.
* ``rename_session``: a chat's title (the ``/title`` path: a ``title`` record, meta.json).
* ``delete_session``: a chat's folder moves to the sessions' ``.trash/`` (``Reply.text`` says
  where); its checkpoints stay in the project's shadow repository until retention removes
  them. An open chat is closed first; a running turn refuses.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from zengine_jupyter.protocol._data_model import DataModel
from zengine_jupyter.protocol._wire_version import WIRE_VERSION, WireVersion

__all__ = [
    "ChatOptions",
    "ChatOptionsRequest",
    "DeleteSessionRequest",
    "ProviderState",
    "RenameSessionRequest",
]

ChatMode = Literal["default", "accept_edits", "plan", "bypass"]
"""``config.PermissionMode``, repeated here: the protocol imports nothing of ours."""


class _Request(DataModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    v: WireVersion = WIRE_VERSION
    id: str


class ChatOptionsRequest(_Request):
    """The input footer's choices for a chat (its id, else the followed or current chat, else
    what a new chat would use); answered in ``Reply.options``."""

    kind: Literal["chat_options"] = "chat_options"
    session_id: str | None = None


class RenameSessionRequest(_Request):
    """Rename a chat of the project (open in this kernel or not)."""

    kind: Literal["rename_session"] = "rename_session"
    session_id: str
    title: str


class DeleteSessionRequest(_Request):
    """Delete a chat of the project: its log moves to the trash, its checkpoints stay."""

    kind: Literal["delete_session"] = "delete_session"
    session_id: str


class ProviderState(DataModel):
    """Where a chat's answers come from, in words for an empty or error state."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["live", "local", "replay", "unconfigured"]
    """``live``: a provider's API; ``local``: a server on this machine (its model list is
    the server's); ``replay``: a recorded cassette, no provider is called; ``unconfigured``:
    no key, no endpoint and no cassette."""
    provider: str | None = None
    """The provider's host (``api.anthropic.com``, ``127.0.0.1:8000``); None for a replay."""
    text: str
    """What is happening."""
    hint: str | None = None
    """What to do."""
    cassette: str | None = None
    """The replayed recording's path."""


class ChatOptions(DataModel):
    """The input footer's state for one chat (or a chat not opened yet)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    session_id: str | None = None
    """The chat these are for; None: no chat is open yet (a new one would use them)."""
    model: str
    models: list[str]
    """Ids to choose from, the chat's own model among them."""
    models_note: str
    """Where the list comes from (the catalog, the local server, a recording)."""
    mode: ChatMode
    modes: list[ChatMode]
    """The modes this chat may switch to (``bypass`` only where the settings allow it)."""
    modes_note: str | None = None
    """Why a mode is left out, when one is."""
    cost_usd: float = 0.0
    unpriced: bool = False
    """Some request had no known price: the cost is a lower bound."""
    provider: ProviderState
