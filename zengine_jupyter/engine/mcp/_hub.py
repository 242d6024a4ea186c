"""McpHub: every MCP server of one chat (spec "MCP servers" items 1, 2 and 6).

When a chat opens, :meth:`McpHub.start` starts every enabled server in the background and
returns at once (project-defined servers only in a trusted workspace); :meth:`statuses` feeds
the notice and ``/mcp``; :meth:`reconcile` applies a settings reload, restarting only the
servers whose entries changed. Calls route by qualified name (``mcp__<server>__<tool>``).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from zengine_jupyter.integrations.mcp import McpManagerOptions
from zengine_jupyter.protocol import McpConnectionError, McpRequestError, McpServerError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping, Sequence

    from zengine_jupyter.integrations.mcp import (
        McpCallResult,
        McpManager,
        McpPrompt,
        McpResource,
        McpResourceContent,
        McpServerEntry,
        McpTool,
    )
    from zengine_jupyter.protocol import McpServerStatus

__all__ = ["McpHub", "McpOrigin", "McpReconcileReport", "McpResourceListing"]

McpOrigin: TypeAlias = Literal["user", "project"]
"""Where an entry came from: ``project`` (the project's settings files or ``.mcp.json``) runs
only in a trusted workspace; ``user`` always may."""


@dataclass(frozen=True)
class McpReconcileReport:
    """What a reload did, by server name."""

    started: tuple[str, ...] = ()
    restarted: tuple[str, ...] = ()
    stopped: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()


@dataclass(frozen=True)
class McpResourceListing:
    """Resources of every ready server, and the servers that could not list theirs."""

    resources: tuple[McpResource, ...]
    errors: Mapping[str, str]


class McpHub:
    """The MCP servers of one chat."""

    def __init__(self, options: McpManagerOptions | None = None) -> None:
        self.options = options or McpManagerOptions()
        self._config: dict[str, tuple[McpServerEntry, McpOrigin]] = {}
        self._trusted = False
        self._managers: dict[str, McpManager] = {}
        self._version = 0
        self._index: dict[str, McpTool] | None = None
        self._listeners: list[Callable[[], None]] = []
        self._closed = False

    # ------------------------------------------------------------- lifecycle
    def start(self, servers: Sequence[tuple[McpServerEntry, McpOrigin]], *, trusted: bool) -> None:
        """Start every allowed server in the background (needs a running loop); returns at once."""
        self._configure(servers, trusted)
        for name in self._config:
            if self._allowed(name) and name not in self._managers:
                self._launch(name)

    async def reconcile(
        self, servers: Sequence[tuple[McpServerEntry, McpOrigin]], *, trusted: bool
    ) -> McpReconcileReport:
        """Apply new settings: start new servers, stop removed or no longer allowed ones, and
        restart only those whose entry changed. Unchanged servers keep their process."""
        old = {name: entry for name, (entry, _) in self._config.items()}
        self._configure(servers, trusted)
        started, restarted, stopped, unchanged = [], [], [], []
        for name in list(self._managers):
            if not self._allowed(name):
                await self._managers.pop(name).aclose()
                stopped.append(name)
        for name in self._config:
            if not self._allowed(name):
                continue
            manager = self._managers.get(name)
            if manager is None:
                self._launch(name)
                started.append(name)
            elif old.get(name) != self._config[name][0]:
                await self._managers.pop(name).aclose()
                self._launch(name)
                restarted.append(name)
            else:
                unchanged.append(name)
        self._changed()
        return McpReconcileReport(
            tuple(started), tuple(restarted), tuple(stopped), tuple(unchanged)
        )

    async def wait_settled(self, timeout_s: float | None = None) -> tuple[McpServerStatus, ...]:
        """Wait until no server is still starting (or ``timeout_s``); then the statuses."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s), asyncio.TaskGroup() as tg:
                for manager in self._managers.values():
                    tg.create_task(manager.wait_ready())
        return self.statuses()

    async def aclose(self) -> None:
        """Stop every server; idempotent."""
        self._closed = True
        managers, self._managers = list(self._managers.values()), {}
        async with asyncio.TaskGroup() as tg:
            for manager in managers:
                tg.create_task(manager.aclose())
        self._changed()

    # ---------------------------------------------------------------- state
    @property
    def version(self) -> int:
        """Grows on every change of a server's state or tool list."""
        return self._version

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` on every change; returns the unsubscribe function."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def manager(self, server: str) -> McpManager | None:
        return self._managers.get(server)

    def statuses(self) -> tuple[McpServerStatus, ...]:
        """Every configured server, in settings order, for the notice and ``/mcp``."""
        from zengine_jupyter.protocol import McpServerStatus

        out: list[McpServerStatus] = []
        for name, (entry, origin) in self._config.items():
            manager = self._managers.get(name)
            if manager is not None:
                out.append(manager.status.model_copy(update={"origin": origin}))
                continue
            state: Literal["disabled", "withheld", "stopped"]
            if not entry.enabled:
                state, reason = "disabled", "enabled = false in its entry"
            elif origin == "project" and not self._trusted:
                state, reason = "withheld", "project-defined: starts once you trust this workspace"
            else:
                state, reason = "stopped", None
            out.append(
                McpServerStatus(
                    name=name, transport=entry.transport, state=state, reason=reason, origin=origin
                )
            )
        return tuple(out)

    def tools(self) -> tuple[McpTool, ...]:
        """Every MCP tool the agent has now (ready and disconnected servers), in settings order."""
        return tuple(self._tool_index().values())

    def tool(self, qualified: str) -> McpTool | None:
        return self._tool_index().get(qualified)

    def prompts(self) -> tuple[McpPrompt, ...]:
        """Every server's prompts: the slash commands ``/mcp__<server>__<prompt>``."""
        return tuple(p for m in self._managers.values() for p in m.prompts)

    # ------------------------------------------------------------- requests
    def call_tool(
        self, qualified: str, arguments: Mapping[str, Any] | None = None
    ) -> Awaitable[McpCallResult]:
        """Call an MCP tool by its qualified name (the manager's request itself, not awaited
        here: see :meth:`McpManager.call_tool`). An unknown name raises at once."""
        tool = self._tool_index().get(qualified)
        manager = self._managers.get(tool.server) if tool is not None else None
        if tool is None or manager is None:
            server = qualified.split("__")[1] if qualified.startswith("mcp__") else ""
            raise McpRequestError(server, f"there is no MCP tool named {qualified}")
        return manager.call_tool(tool.name, arguments)

    async def list_resources(self, server: str | None = None) -> McpResourceListing:
        """Resources of one server, or of every server that is ready or disconnected."""
        names = [server] if server is not None else list(self._managers)
        resources: list[McpResource] = []
        errors: dict[str, str] = {}
        for name in names:
            manager = self._managers.get(name)
            if manager is None:
                errors[name] = "no such MCP server is running"
                continue
            if server is None and manager.status.state not in ("ready", "disconnected"):
                continue
            try:
                resources.extend(await manager.list_resources())
            except McpServerError as exc:
                errors[name] = str(exc)
        return McpResourceListing(tuple(resources), errors)

    async def read_resource(self, server: str, uri: str) -> tuple[McpResourceContent, ...]:
        manager = self._managers.get(server)
        if manager is None:
            raise McpConnectionError(server, f"there is no running MCP server named {server!r}")
        return await manager.read_resource(uri)

    # ------------------------------------------------------------ internals
    def _configure(
        self, servers: Sequence[tuple[McpServerEntry, McpOrigin]], trusted: bool
    ) -> None:
        self._config = {entry.name: (entry, origin) for entry, origin in servers}
        self._trusted = trusted

    def _allowed(self, name: str) -> bool:
        if name not in self._config:
            return False  # removed from the settings
        entry, origin = self._config[name]
        return entry.enabled and (origin != "project" or self._trusted)

    def _launch(self, name: str) -> None:
        if self._closed:
            raise McpConnectionError(name, "the chat's MCP hub is closed")
        entry = self._config[name][0]
        from zengine_jupyter.integrations.mcp import McpManager  # a server's first start

        manager = McpManager(entry, self.options, on_change=lambda _m: self._changed())
        self._managers[name] = manager
        manager.start()

    def _changed(self) -> None:
        self._version += 1
        self._index = None
        for listener in list(self._listeners):
            listener()

    def _tool_index(self) -> dict[str, McpTool]:
        if self._index is None:
            index: dict[str, McpTool] = {}
            for name in self._config:
                manager = self._managers.get(name)
                if manager is None:
                    continue
                for tool in manager.tools:
                    index.setdefault(tool.qualified, tool)  # first server wins a name clash
            self._index = index
        return self._index
