"""``ZengineAgent``: the engine as an Agent Client Protocol agent (``zengine acp``).

``initialize`` advertises session loading, text and embedded-context prompts and MCP over
HTTP and stdio; ``session/new`` opens an engine chat in ``cwd`` with the client's MCP servers
added to the settings' (the user's, as if in the user's settings: a project's own servers
still need trust); ``session/prompt`` runs one turn and streams it (``_updates``); approvals
and trust questions are ``session/request_permission`` (``_permissions``); ``session/cancel``
interrupts. Files and commands stay the engine's: it never uses the client's fs or terminals.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    AuthMethodAgent,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from zengine_jupyter._version import __version__
from zengine_jupyter.acp._chat import AcpChat
from zengine_jupyter.acp._permissions import AcpApprovals
from zengine_jupyter.acp._plan import plan_update
from zengine_jupyter.acp._prompt import client_mcp_servers, prompt_parts
from zengine_jupyter.acp._updates import UpdateMapper
from zengine_jupyter.config import provider_configured
from zengine_jupyter.engine import (
    Session,
    SessionOptions,
    TurnInProgressError,
    check_project_folder,
    setup_models,
)
from zengine_jupyter.protocol import Notice, ZengineError
from zengine_jupyter.store import SessionStore

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from acp.interfaces import Client

    from zengine_jupyter.engine import SessionExtension
    from zengine_jupyter.llm import ModelClient

__all__ = ["AUTH_METHOD", "ZengineAgent"]

log = logging.getLogger("zengine.acp")

AUTH_METHOD = "zengine-provider"
_STOP = {"completed": "end_turn", "interrupted": "cancelled"}
_NO_PROVIDER = (
    "no model provider is set up: run `zengine auth login anthropic` (or openai) in a "
    "terminal, or set ANTHROPIC_API_KEY"
)


def _error(exc: ZengineError) -> RequestError:
    hint = f" ({exc.hint})" if getattr(exc, "hint", None) else ""
    return RequestError(-32602, f"{exc}{hint}")


class ZengineAgent:
    """One ACP connection's agent: any number of sessions (engine chats)."""

    def __init__(
        self,
        *,
        environ: Mapping[str, str] | None = None,
        client: ModelClient | None = None,
        extensions: tuple[Callable[[], SessionExtension], ...] = (),
    ) -> None:
        self._environ = environ
        self._model_client = client  # tests: a ready model client for every chat
        self._extensions = extensions
        self._conn: Client | None = None
        self._chats: dict[str, AcpChat] = {}

    def on_connect(self, conn: Client) -> None:
        self._conn = conn

    @property
    def client(self) -> Client:
        assert self._conn is not None, "not connected"
        return self._conn

    # ------------------------------------------------------------ set-up
    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=False),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            auth_methods=[
                AuthMethodAgent(
                    id=AUTH_METHOD,
                    name="Model provider key",
                    description="The key zengine already uses: `zengine auth login PROVIDER` "
                    "in a terminal (auth.json), or ANTHROPIC_API_KEY / OPENAI_API_KEY",
                )
            ],
            agent_info=Implementation(name="zengine", title="zengine", version=__version__),
        )

    async def authenticate(self, method_id: str, **_: Any) -> AuthenticateResponse:
        if method_id != AUTH_METHOD:
            raise RequestError(-32602, f"unknown auth method {method_id!r}; use {AUTH_METHOD}")
        if not await asyncio.to_thread(provider_configured, Path.cwd(), self._environ):
            raise RequestError(-32000, _NO_PROVIDER)
        return AuthenticateResponse()

    # ------------------------------------------------------------ sessions
    async def _open(self, cwd: str, session_id: str | None, mcp_servers: Any) -> AcpChat:
        project = await asyncio.to_thread(Path(cwd).resolve)
        chat: AcpChat | None = None
        mapper = UpdateMapper(project)
        servers, problems = client_mcp_servers(mcp_servers or [])
        approvals = AcpApprovals(lambda: self.client, lambda: chat.id if chat else "", mapper)
        try:
            check_project_folder(project)
            session = await Session.open(SessionOptions(
                project=project, session_id=session_id, approvals=approvals,
                client=self._model_client, environ=self._environ,
                extensions=self._extensions, mcp_servers=servers,
            ))  # fmt: skip
        except ZengineError as exc:
            raise _error(exc) from exc
        chat = AcpChat(session, self.client, mapper)
        self._chats[chat.id] = chat
        for problem in problems:
            session.announce(Notice(session_id=session.id, topic="mcp", text=problem))
        return chat

    def _chat(self, session_id: str) -> AcpChat:
        chat = self._chats.get(session_id)
        if chat is None:
            raise RequestError(-32602, f"no open session {session_id!r}: session/load it first")
        return chat

    async def _models(self, chat: AcpChat) -> list[str]:
        kind = chat.session.provider.kind
        if kind not in ("anthropic", "openai"):
            return []
        try:
            models, _note = await setup_models(kind, None)
        except Exception:  # the picker is a convenience: no catalog, no list
            log.exception("no model list for %s", kind)
            return []
        return [m.id for m in models][:40]

    def _later(self, chat: AcpChat, *updates: Any) -> None:
        """Send after the response that names the session (clients key updates by it)."""

        async def send() -> None:
            await asyncio.sleep(0.05)
            for update in updates:
                await chat.send(update)

        asyncio.get_running_loop().create_task(send())

    async def new_session(self, cwd: str, mcp_servers: Any = None, **_: Any) -> NewSessionResponse:
        chat = await self._open(cwd, None, mcp_servers)
        self._later(chat, chat.commands())
        return NewSessionResponse(
            session_id=chat.id,
            modes=chat.modes(),
            config_options=chat.config_options(await self._models(chat)),
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any
    ) -> LoadSessionResponse:
        old = self._chats.pop(session_id, None)
        if old is not None:
            await old.aclose()
        chat = await self._open(cwd, session_id, mcp_servers)
        for update in chat.mapper.history(chat.session.writer.state().transcript):
            await chat.send(update)
        self._later(chat, chat.commands())
        return LoadSessionResponse(
            modes=chat.modes(), config_options=chat.config_options(await self._models(chat))
        )

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **_: Any
    ) -> ListSessionsResponse:
        project = str(await asyncio.to_thread(Path(cwd).resolve)) if cwd else None
        metas = await asyncio.to_thread(SessionStore().list)
        chats = sorted(
            (m for m in metas if project is None or m.project == project),
            key=lambda m: m.updated,
            reverse=True,
        )
        return ListSessionsResponse(sessions=[
            SessionInfo(session_id=m.id, cwd=m.project or "", title=m.title,
                        updated_at=m.updated.isoformat())
            for m in chats
        ])  # fmt: skip

    async def set_session_mode(
        self, mode_id: str, session_id: str, **_: Any
    ) -> SetSessionModeResponse:
        chat = self._chat(session_id)
        answer = await chat.set_mode(mode_id)
        if chat.session.mode != mode_id:
            raise RequestError(-32602, answer)
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **_: Any
    ) -> SetSessionConfigOptionResponse:
        chat = self._chat(session_id)
        if config_id == "mode" and isinstance(value, str):
            await self.set_session_mode(value, session_id)
        elif config_id == "model" and isinstance(value, str) and value:
            await chat.session.commands["model"](chat.session, value)
        else:
            raise RequestError(-32602, f"unknown option {config_id!r}={value!r}; "
                               "options: mode, model")  # fmt: skip
        options = chat.config_options(await self._models(chat))
        return SetSessionConfigOptionResponse(config_options=options)

    # ------------------------------------------------------------ turns
    async def prompt(self, prompt: list[Any], session_id: str, **_: Any) -> PromptResponse:
        chat = self._chat(session_id)
        text, images = prompt_parts(prompt)
        planning = chat.session.mode == "plan"
        try:
            outcome = await chat.session.submit(text, images)
        except TurnInProgressError as exc:
            raise RequestError(-32600, f"{exc}: wait for it, or session/cancel it") from exc
        await chat.flush()
        if planning and outcome.status == "completed" and (plan := plan_update(outcome.text)):
            await chat.send(plan)  # plan mode's answer as the client's checklist
        await chat.send(chat.usage())
        if outcome.status == "failed":
            raise RequestError(-32603, f"the turn failed: {outcome.reason or 'see the log'}")
        return PromptResponse(stop_reason=_STOP[outcome.status])  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **_: Any) -> None:
        chat = self._chats.get(session_id)
        if chat is not None:
            chat.session.interrupt()

    # ------------------------------------------------------------ end
    async def aclose(self) -> None:
        chats, self._chats = list(self._chats.values()), {}
        for chat in chats:
            try:
                await chat.aclose()
            except Exception:
                log.exception("closing chat %s", chat.id)
