"""The kernel's answers to the panel's requests (``protocol/_wire.py``), on the kernel's loop.

``hello``, ``interrupt`` and ``approval_answer`` are answered at once (:func:`answer_now`, so an
approval is never queued behind a slow request); the others run as tasks of their comm
(:func:`answer_later`). Each request gets exactly one :class:`Reply`; anything the engine
raises becomes ``ok`` false with its message and hint (:func:`failure`).

Which chat a request is about: its ``session_id`` when it has one, else the chat the comm
follows, else the kernel's current chat (the one ``%%agent`` continues). ``submit`` and
``command`` open a new chat when there is none, and a comm that follows no chat yet follows
the one they went to.
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, Any

from zengine_jupyter._version import __version__
from zengine_jupyter.kernel._chat_requests import CHAT_HANDLERS
from zengine_jupyter.kernel._comm import WIRE_VERSION
from zengine_jupyter.kernel._status import current_status

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from pydantic import TypeAdapter, ValidationError

    from zengine_jupyter.kernel._comm import PanelComm
    from zengine_jupyter.kernel._controller import _Chat
    from zengine_jupyter.protocol import CodeRestore, McpServerStatus, Reply, RewindResult

__all__ = ["answer_later", "answer_now", "failure", "parse_request", "validation_problems"]


@functools.cache
def _adapter() -> TypeAdapter[Any]:
    from pydantic import TypeAdapter

    from zengine_jupyter.protocol import PanelRequest

    return TypeAdapter(PanelRequest)


def _failed(request_id: str, error: str, hint: str | None = None) -> Reply:
    from zengine_jupyter.protocol import Reply

    return Reply(id=request_id, ok=False, error=error, hint=hint)


def _ok(request_id: str, **fields: Any) -> Reply:
    from zengine_jupyter.protocol import Reply

    return Reply(id=request_id, ok=True, **fields)


def failure(request_id: str, exc: BaseException) -> Reply:
    """An exception as a failed reply: a ``ZengineError``'s message and hint, else its type."""
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    if not hasattr(exc, "hint"):
        message = f"{type(exc).__name__}: {message}"
    return _failed(request_id, message, getattr(exc, "hint", None))


def parse_request(data: dict[str, Any]) -> tuple[Any, Reply | None]:
    """The request in ``data`` (which has a string ``id``), or the reply refusing it."""
    from pydantic import ValidationError

    request_id: str = data["id"]
    if data.get("v") != WIRE_VERSION:
        return None, _failed(
            request_id,
            f"the panel speaks wire version {data.get('v')!r}, this kernel's zengine "
            f"{__version__} speaks {WIRE_VERSION}",
            hint="install the same zengine-jupyter version in JupyterLab's and the kernel's "
            "environment, then reload the page",
        )
    kind = data.get("kind")
    if kind not in _KINDS:
        return None, _failed(
            request_id,
            f"unknown request kind {kind!r}: this kernel's zengine {__version__} answers "
            + ", ".join(sorted(_KINDS)),
            hint="install the same zengine-jupyter version in JupyterLab's and the kernel's "
            "environment, then reload the page",
        )
    try:
        return _adapter().validate_python(data), None
    except ValidationError as exc:
        return None, _failed(request_id, f"invalid {kind!r} request: {validation_problems(exc)}")


def validation_problems(exc: ValidationError) -> str:
    """A request's first five problems, one ``field: message`` each (for a failed reply)."""
    parts = []
    for error in exc.errors()[:5]:
        where = ".".join(str(p) for p in error["loc"][1:]) or "message"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


# ---------------------------------------------------------------- answered at once


def answer_now(view: PanelComm, request: Any) -> Reply | None:
    """The reply to a request that needs no waiting; None: run :func:`answer_later`."""
    from zengine_jupyter.protocol import HelloMessage

    if request.kind == "hello":
        return HelloMessage(version=__version__, id=request.id)  # type: ignore[return-value]
    if request.kind == "interrupt":
        chat = _known_chat(view, request.session_id)
        if chat is not None:
            chat.session.interrupt()
        return _ok(request.id)
    if request.kind == "approval_answer":
        for chat in list(view.controller.chats.values()):
            if chat.approvals.answer(request.request_id, request.decision):
                return _ok(request.id)
        return _failed(
            request.id,
            "this question was already answered or its turn has ended",
            hint="the chat's events show what happened to the call",
        )
    if request.kind == "open_documents":
        view.controller.live.report(view, request)
        return _ok(request.id)
    if request.kind == "doc_answer":
        if view.controller.live.answer(request):
            return _ok(request.id)
        return _failed(request.id, "no such document request is waiting (it timed out?)")
    return None


def _known_chat(view: PanelComm, session_id: str | None) -> _Chat | None:
    """The open chat a request is about, without opening one."""
    controller = view.controller
    if session_id:
        return controller.chats.get(session_id)
    if view.chat is not None and view.chat.session.id in controller.chats:
        return view.chat
    return controller.current_chat()


async def _chat(view: PanelComm, session_id: str | None) -> _Chat:
    """The chat a request is about, opened (resumed or new) when it is not open; a comm that
    follows no chat yet follows this one from now on (its snapshot comes first)."""
    chat = _known_chat(view, session_id) or await view.controller.open_chat(session_id)
    if view.chat is None:
        view.follow(chat)
    return chat


# ---------------------------------------------------------------- answered by a task


async def answer_later(view: PanelComm, request: Any) -> Reply:
    handler: Callable[[PanelComm, Any], Awaitable[Reply]] = _HANDLERS[request.kind]
    return await handler(view, request)


async def _subscribe(view: PanelComm, request: Any) -> Reply:
    controller = view.controller
    if request.session_id:
        following, view.follows_current = view.follows_current, False  # one snapshot, below
        try:
            chat: _Chat | None = await controller.open_chat(request.session_id)
        finally:
            view.follows_current = following  # (a failed subscribe changes nothing)
    else:
        chat = controller.current_chat()
    # the snapshot goes out before the reply, events after
    view.follow(chat, request.id, current=not request.session_id)
    return _ok(request.id)


async def _submit(view: PanelComm, request: Any) -> Reply:
    chat = await _chat(view, request.session_id)
    turn_id, outcome = await view.controller.begin(chat, request.text)
    return _ok(request.id, turn_id=turn_id, text=outcome.text if outcome else None)


async def _command(view: PanelComm, request: Any) -> Reply:
    chat = await _chat(view, request.session_id)
    name = request.name.lstrip("/")
    if name not in chat.session.commands:
        return _failed(request.id, f"there is no command /{name} in this chat",
                       hint="/help lists the commands")  # fmt: skip
    from zengine_jupyter.engine import CustomCommand
    from zengine_jupyter.kernel._slash import KNOWN

    command = chat.session.commands[name]
    if chat.session.busy and name in KNOWN and not isinstance(command, CustomCommand):
        result = await command(chat.session, request.args)  # never a turn: runs beside one
        return _ok(request.id, text=result.text)
    line = f"/{name} {request.args}".rstrip()
    turn_id, outcome = await view.controller.begin(chat, line)
    return _ok(request.id, turn_id=turn_id, text=outcome.text if outcome else None)


async def _rewind(view: PanelComm, request: Any) -> Reply:
    from zengine_jupyter.engine import describe_rewind, rewind

    chat = _known_chat(view, request.session_id)
    if chat is None and request.session_id:
        chat = await view.controller.open_chat(request.session_id)
    if chat is None:
        return _failed(request.id, "there is no chat to rewind in this kernel yet",
                       hint="send a message first, or subscribe to a chat")  # fmt: skip
    scope = request.scope
    result = await rewind(chat.session, request.turn_id, code=scope in ("code", "both"),
                          conversation=scope in ("conversation", "both"))  # fmt: skip
    return _ok(request.id, restore=_not_reloaded(chat, result), text=describe_rewind(result))


def _not_reloaded(chat: _Chat, result: RewindResult) -> CodeRestore | None:
    """The restore the page reloads open documents from, less the open notebooks whose cells
    the rewind already put back in the page (they are not also reloaded from disk)."""
    import os
    from pathlib import Path

    restore = result.code
    if restore is None or not result.open_notebooks:
        return restore
    done = {Path(p) for p in result.open_notebooks}

    def keep(files: list[str]) -> list[str]:
        return [f for f in files if Path(os.path.realpath(chat.session.root / f)) not in done]

    return restore.model_copy(update={"restored": keep(restore.restored),
                                      "removed": keep(restore.removed)})  # fmt: skip


async def _trust(view: PanelComm, request: Any) -> Reply:
    from pathlib import Path

    root = current_status().project_root.resolve()
    folder = Path(request.folder).expanduser().resolve()  # noqa: ASYNC240
    if folder != root:
        return _failed(request.id, f"{request.folder} is not this kernel's project ({root})",
                       hint="trust it from a notebook in that folder, or with "
                       "`zengine trust` there")  # fmt: skip
    if not request.trust:
        return _ok(request.id)  # "Not now": nothing is stored, the banner may come back
    await view.controller.trust(root)
    return _ok(request.id)


async def _list_sessions(view: PanelComm, request: Any) -> Reply:
    from zengine_jupyter.store import SessionStore

    root = str(current_status().project_root.resolve())
    chats = await asyncio.to_thread(SessionStore().list)  # newest first
    return _ok(request.id, sessions=[meta for meta in chats if meta.project == root])


async def _mcp_status(view: PanelComm, request: Any) -> Reply:
    chat = _known_chat(view, None)
    return _ok(request.id, servers=await _mcp_servers(chat))


async def _mcp_servers(chat: _Chat | None) -> list[McpServerStatus]:
    """The chat's MCP servers as its extension sees them; with no chat, the configured ones
    (not started). No servers configured: an empty list, and the SDK is never imported."""
    if chat is not None:
        for extension in chat.session.extensions:
            hub = getattr(extension, "_hub", None) if extension.name == "mcp" else None
            if hub is not None:
                return list(hub.statuses())
        return []
    from zengine_jupyter.config import aload_settings

    settings = await aload_settings(current_status().project_root.resolve())
    if not settings.settings.mcp.servers and not settings.withheld:
        return []
    from zengine_jupyter.engine.mcp import servers_from_settings
    from zengine_jupyter.protocol import McpServerState, McpServerStatus

    servers, _problems = servers_from_settings(settings)
    out = []
    for entry, origin in servers:
        state: McpServerState
        if not entry.enabled:
            state, reason = "disabled", "enabled = false in its entry"
        elif origin == "project" and not settings.trusted:
            state, reason = "withheld", "project-defined: starts once you trust this workspace"
        else:
            state, reason = "stopped", "starts when a chat opens in this kernel"
        out.append(McpServerStatus(name=entry.name, transport=entry.transport, state=state,
                                   reason=reason, origin=origin))  # fmt: skip
    return out


async def _list_commands(view: PanelComm, request: Any) -> Reply:
    from zengine_jupyter.kernel._slash import slash_commands

    chat = _known_chat(view, None)
    return _ok(request.id, commands=await slash_commands(chat.session if chat else None))


async def _setup(view: PanelComm, request: Any) -> Reply:
    from zengine_jupyter.kernel._setup import answer_setup

    return _ok(request.id, setup=await answer_setup(view.controller, request))


_SETUP_KINDS = ("setup_state", "setup_find_local", "setup_models", "setup_key", "setup_test",
                "setup_save")  # fmt: skip
_HANDLERS: dict[str, Callable[[PanelComm, Any], Awaitable[Reply]]] = {
    "subscribe": _subscribe,
    "submit": _submit,
    "command": _command,
    "rewind": _rewind,
    "trust_answer": _trust,
    "list_sessions": _list_sessions,
    "mcp_status": _mcp_status,
    "list_commands": _list_commands,
    **dict.fromkeys(_SETUP_KINDS, _setup),
    **CHAT_HANDLERS,
}
_KINDS = frozenset(
    {*_HANDLERS, "hello", "interrupt", "approval_answer", "open_documents", "doc_answer"}
)
