"""The input footer's choices (``protocol/_chats.py``): a chat's model and the models to choose
from, its mode and the modes it may take, its cost, and where its answers come from.

The models: a cassette replays (no choice); a server on this machine, or any
OpenAI-compatible URL, lists its own (``GET /models``, as the setup view asks); a provider's
API gets the catalog's models of that provider (the setup view's list, ``setup_models``).
The chat's model is always in the list. The modes: the four permission modes, ``bypass``
only while ``permissions.allow_bypass`` is true (:func:`allowed_modes`, which ``/mode``
obeys too). Changing either is ``/model`` or ``/mode``: the log records it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from zengine_jupyter.config import PERMISSION_MODES, aload_settings
from zengine_jupyter.engine._wiring import provider_options
from zengine_jupyter.llm import FailingClient, ProviderClient
from zengine_jupyter.protocol import ChatOptions, ProviderError, ProviderState

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.config import PermissionMode, Settings
    from zengine_jupyter.engine._session import Session

__all__ = ["BYPASS_OFF", "allowed_modes", "chat_options"]

Reach = Literal["live", "local"]

BYPASS_OFF = "bypass is off here: permissions.allow_bypass = false in your settings"
SETUP_HINT = (
    "Choose a provider and a model in the setup view (`%zengine setup` in a cell), or set "
    "ANTHROPIC_API_KEY / OPENAI_API_KEY (or ZENGINE_BASE_URL for a local server) before "
    "starting JupyterLab."
)
LIVE_HINT = (
    "To run live, set ANTHROPIC_API_KEY or OPENAI_API_KEY, or ZENGINE_BASE_URL, and unset "
    "ZENGINE_CASSETTE (or [provider] cassette), then open a new chat."
)


def allowed_modes(settings: Settings) -> list[PermissionMode]:
    """The modes a chat may switch to under ``settings``."""
    return [m for m in PERMISSION_MODES if m != "bypass" or settings.permissions.allow_bypass]


async def chat_options(root: Path, session: Session | None) -> ChatOptions:
    """The footer's state for ``session``, or for a chat not opened yet on ``root``."""
    if session is not None:
        settings = session.settings.settings
        model, state = _state_of(session)
        mode: PermissionMode = session.mode
        cost, unpriced = session.meter.total_usd, bool(session.meter.unknown)
        sid: str | None = session.id
    else:
        settings = (await aload_settings(root)).settings
        model, state = await _state_without_chat(root)
        mode, cost, unpriced, sid = settings.permissions.mode, 0.0, False, None
    models, note = await _models(state, model, root, session)
    modes = allowed_modes(settings)
    return ChatOptions(session_id=sid, model=model, models=models, models_note=note, mode=mode,
                       modes=modes, modes_note=None if "bypass" in modes else BYPASS_OFF,
                       cost_usd=cost, unpriced=unpriced, provider=state)  # fmt: skip


def _state_of(session: Session) -> tuple[str, ProviderState]:
    from zengine_jupyter.llm import REPLAY_MODEL, ReplayClient  # not with /mode (a first turn's)

    client = session.client
    if isinstance(client, ReplayClient):
        return REPLAY_MODEL, _replay(str(client.cassette))
    if isinstance(client, FailingClient):
        reason = client.reason
        return session.provider.model or "", ProviderState(
            kind="unconfigured", text=reason.message, hint=reason.hint or SETUP_HINT
        )
    if isinstance(client, ProviderClient):
        endpoint = client.adapter.endpoint
        kind: Reach = "local" if endpoint.local else "live"
        return client.models[0], ProviderState(
            kind=kind, provider=endpoint.host, text=f"{client.models[0]} at {endpoint.host}"
        )
    model = session.provider.model or ""
    return model, ProviderState(kind="live", text=model or "a model client handed to the chat")


async def _state_without_chat(root: Path) -> tuple[str, ProviderState]:
    from zengine_jupyter.engine._setup import setup_state  # not with /mode (a first turn's)
    from zengine_jupyter.llm import REPLAY_MODEL

    current = await setup_state(root)
    if current.provider == "replay":
        return REPLAY_MODEL, _replay(current.recording or "")
    if not current.configured:
        text = current.problem or "No model is configured."
        return "", ProviderState(kind="unconfigured", text=text, hint=SETUP_HINT)
    host = current.key.host if current.key else None
    local = current.provider == "local" or (current.key is not None and not current.key.needed)
    kind: Reach = "local" if local else "live"
    model = current.model or ""
    where = f" at {host}" if host else ""
    return model, ProviderState(kind=kind, provider=host, text=f"{model}{where}")


def _replay(cassette: str) -> ProviderState:
    return ProviderState(
        kind="replay",
        cassette=cassette,
        text=f"This chat replays a recorded cassette ({cassette}): no provider is called.",
        hint=LIVE_HINT,
    )


async def _models(
    state: ProviderState, model: str, root: Path, session: Session | None
) -> tuple[list[str], str]:
    if state.kind == "replay":
        from zengine_jupyter.llm import REPLAY_MODEL

        return [REPLAY_MODEL], "a recording: its answers are fixed"
    if state.kind == "unconfigured" or state.provider is None:
        return [model] if model else [], "no provider is configured"
    if session is not None:
        kind, base_url = session.provider.kind, session.provider.base_url
    else:
        loaded = await aload_settings(root)
        options = provider_options(loaded.settings, loaded.provider_issues)
        kind, base_url = options.kind, options.base_url
    from zengine_jupyter.engine._setup import _provider_of, setup_models

    provider = _provider_of(kind, base_url, state.provider)
    try:
        infos, note = await setup_models(provider, base_url)
    except ProviderError as exc:
        return [model], f"the list could not be read: {exc.message}"
    ids = [info.id for info in infos]
    if model and model not in ids:
        ids.insert(0, model)
    return ids, note
