"""McpExtension: a chat's MCP servers wired into the engine.

``start`` registers ``/mcp``, starts the hub in the background (the SDK is imported in a
thread, so ``Session.open`` never waits for it) and returns. When start-up settles, a ``Notice``
lists the ready and failed servers. Server tools, prompts (``/mcp__<server>__<prompt>``) and
the resource tools follow the hub: each change of a server's state or tool list updates
``session.tools`` and ``session.commands``. Above ``DEFER_ABOVE`` MCP tools, requests carry only
the loaded definitions and ``LoadMcpTools`` (``hidden_tools``) plus the names-and-summaries
list (``reminder``); a deferred tool the model calls before loading it is refused before the
gate. The first request of a turn waits (at most ``mcp.startup_wait``) for servers still
starting (``before_first_request``). ``reload`` reconciles (only changed servers restart) and
says what it did; ``aclose`` stops every server.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from typing import TYPE_CHECKING, Any

from zengine_jupyter.engine._extension import CommandResult, SessionExtension
from zengine_jupyter.engine.mcp._catalog import LOAD_MCP_TOOLS, McpCatalogView, build_catalog
from zengine_jupyter.engine.mcp._deferred import DeferredTools
from zengine_jupyter.engine.mcp._hub import McpHub
from zengine_jupyter.engine.mcp._prompts import run_prompt_command
from zengine_jupyter.engine.mcp._servers import loaded_in_log, servers_from_settings
from zengine_jupyter.engine.mcp._status import describe_reconcile, render_notice, render_table
from zengine_jupyter.engine.mcp._tools import (
    ListMcpResourcesTool,
    LoadMcpToolsTool,
    McpServerTool,
    ReadMcpResourceTool,
    mcp_tool,
)
from zengine_jupyter.integrations.mcp import McpManagerOptions
from zengine_jupyter.protocol import McpServerError, Notice

if TYPE_CHECKING:
    from zengine_jupyter.engine._extension import SlashCommand
    from zengine_jupyter.engine._session import Session
    from zengine_jupyter.engine.mcp._hub import McpOrigin
    from zengine_jupyter.engine.tools import Tool
    from zengine_jupyter.integrations.mcp import McpServerEntry
    from zengine_jupyter.protocol import McpServerStatus

__all__ = ["McpExtension"]

_SDK_MODULE = "zengine_jupyter.integrations.mcp._connection"
WAIT_COMMAND_S = 30.0
"""``/mcp wait``: how long it waits for the servers to start or fail before it answers."""


class McpExtension(SessionExtension):
    """One per chat: its :class:`McpHub`, deferred tools, MCP tools and commands."""

    name = "mcp"

    def __init__(self, hub: McpHub | None = None) -> None:
        self._hub = hub
        self.deferred = DeferredTools()
        self._session: Session | None = None
        self._servers: list[tuple[McpServerEntry, McpOrigin]] = []
        self._tools: dict[str, McpServerTool] = {}
        self._prompts: set[str] = set()
        self._view: McpCatalogView | None = None
        self._view_key: tuple[int, frozenset[str]] | None = None
        self._sent: McpCatalogView | None = None
        self._started = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._unsubscribe: Any = None
        self._trusted = False

    @property
    def hub(self) -> McpHub:
        assert self._hub is not None, "the MCP extension has not started"
        return self._hub

    # ------------------------------------------------------------- lifecycle
    async def start(self, session: Session) -> None:
        self._session = session
        if self._hub is None:
            self._hub = McpHub(McpManagerOptions(root=session.root))
        self.deferred = DeferredTools(loaded_in_log(session.writer.state().transcript))
        session.commands["mcp"] = self._status_command
        self._servers, problems = servers_from_settings(session.settings, session.mcp_servers)
        for problem in problems:
            self._notice(problem)
        self._unsubscribe = self.hub.subscribe(self._sync)
        if not self._servers:
            self._started.set()
            return
        self._spawn(self._start_servers(session.settings.trusted))

    async def _start_servers(self, trusted: bool) -> None:
        self._trusted = trusted
        if any(self._allowed(entry, origin, trusted) for entry, origin in self._servers):
            # The SDK import (~0.6 s) runs off the event loop: the chat is usable meanwhile.
            await asyncio.to_thread(importlib.import_module, _SDK_MODULE)
        self.hub.start(self._servers, trusted=trusted)
        self._started.set()
        self._sync()
        await self._announce()

    async def _announce(self) -> None:
        text = render_notice(await self.hub.wait_settled())
        if text is not None:
            self._notice(text)

    async def wait_ready(self, timeout_s: float | None = None) -> tuple[McpServerStatus, ...]:
        """Until every server has started or failed (tests, frontends); then the statuses."""
        async with asyncio.timeout(timeout_s):
            await self._started.wait()
            return await self.hub.wait_settled(timeout_s)

    async def reload(self, session: Session) -> list[str]:
        await self._started.wait()
        known = {entry.name for entry, _ in self._servers}
        self._servers, problems = servers_from_settings(session.settings, session.mcp_servers)
        for problem in problems:
            self._notice(problem)
        trusted = self._trusted = session.settings.trusted
        if any(self._allowed(entry, origin, trusted) for entry, origin in self._servers):
            await asyncio.to_thread(importlib.import_module, _SDK_MODULE)
        report = await self.hub.reconcile(self._servers, trusted=trusted)
        self._sync()
        if report.started or report.restarted:
            self._spawn(self._announce())
        return describe_reconcile(report, known)

    async def before_first_request(self, session: Session, turn_id: str) -> None:
        """Wait (at most ``mcp.startup_wait``) for servers still starting, saying so; a server
        still starting then is named, and its tools join a later request once it is up."""
        waiting = self._starting()
        wait_s = session.settings.settings.mcp.startup_wait
        if not waiting or wait_s <= 0:
            return
        self._notice(f"waiting for MCP servers ({', '.join(waiting)})", turn_id)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait_s):
                await self._started.wait()
                await self.hub.wait_settled()
        if still := self._starting():
            self._notice(
                f"MCP servers still starting after {wait_s:g} s: {', '.join(still)}; "
                "their tools join a later request once they are up",
                turn_id,
            )

    def _starting(self) -> list[str]:
        """Servers that may start and have not started or failed yet."""
        if not self._started.is_set():
            trusted = self._session.settings.trusted if self._session is not None else False
            return [e.name for e, o in self._servers if self._allowed(e, o, trusted)]
        return [s.name for s in self.hub.statuses() if s.state == "starting"]

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._hub is not None:
            await self._hub.aclose()

    # ------------------------------------------------------------- requests
    def hidden_tools(self, session: Session) -> set[str]:
        view = self._current_view()
        self._sent = view  # what the model may call in its answer to this request
        hidden = {name for name in self._tools if name not in view.callable}
        if not view.deferred and LOAD_MCP_TOOLS in session.tools:
            hidden.add(LOAD_MCP_TOOLS)
        return hidden

    def reminder(self, session: Session) -> str | None:
        return self._current_view().reminder

    def check_call(self, name: str) -> str | None:
        """``None`` when the model may call ``name`` now; else why not (before the gate)."""
        view = self._sent or self._current_view()
        return view.check_call(name)

    def _current_view(self) -> McpCatalogView:
        key = (self.hub.version, self.deferred.loaded)
        if self._view is None or self._view_key != key:
            self._view = build_catalog(self.hub.tools(), self.deferred.loaded)
            self._view_key = key
        return self._view

    # ------------------------------------------------------------- following the hub
    def _sync(self) -> None:
        """Bring ``session.tools`` and ``session.commands`` in line with the hub."""
        session = self._session
        if session is None:
            return
        tools = session.tools
        current = {t.qualified: t for t in self.hub.tools()}
        for name in [n for n, tool in self._tools.items() if n not in current
                     or tool.definition != current[n]]:  # fmt: skip
            del self._tools[name]
            if isinstance(tools.get(name), McpServerTool):
                del tools[name]
        for name, definition in current.items():
            if name not in self._tools and name not in tools:
                self._tools[name] = tools[name] = mcp_tool(definition, self.hub, self.check_call)
        self._sync_builtins(tools)
        self._sync_prompts(session)

    def _sync_builtins(self, tools: dict[str, Tool[Any]]) -> None:
        if self._hub is None or LOAD_MCP_TOOLS in tools:
            return
        if not any(self._allowed(e, o, self._trusted) for e, o in self._servers):
            return
        for tool in (
            ListMcpResourcesTool(self.hub),
            ReadMcpResourceTool(self.hub),
            LoadMcpToolsTool(self.hub, self.deferred),
        ):
            tools.setdefault(tool.name, tool)

    def _sync_prompts(self, session: Session) -> None:
        wanted = {p.command for p in self.hub.prompts()}
        for command in self._prompts - wanted:
            session.commands.pop(command, None)
        for command in wanted - self._prompts:
            if command not in session.commands:
                session.commands[command] = self._prompt_command(command)
        self._prompts = {c for c in wanted if c in session.commands}

    def _prompt_command(self, command: str) -> SlashCommand:
        async def run(session: Session, args: str) -> CommandResult:
            try:
                text = await run_prompt_command(self.hub, command, args)
            except McpServerError as exc:
                return CommandResult(f"/{command}: {exc}")
            return CommandResult(prompt=text)

        return run

    async def _status_command(self, session: Session, args: str) -> CommandResult:
        if args.strip() == "wait":  # a notebook that needs the tools before its next request
            with contextlib.suppress(TimeoutError):
                await self.wait_ready(WAIT_COMMAND_S)
        if not self._started.is_set():
            names = ", ".join(entry.name for entry, _ in self._servers)
            return CommandResult(f"MCP servers starting: {names}")
        return CommandResult(render_table(self.hub.statuses()))

    # ------------------------------------------------------------- helpers
    @staticmethod
    def _allowed(entry: McpServerEntry, origin: McpOrigin, trusted: bool) -> bool:
        return entry.enabled and (origin != "project" or trusted)

    def _notice(self, text: str, turn_id: str | None = None) -> None:
        if self._session is not None:
            self._session.journal.publish(
                Notice(session_id=self._session.id, turn_id=turn_id, topic="mcp", text=text)
            )

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work, name="zengine-mcp")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
