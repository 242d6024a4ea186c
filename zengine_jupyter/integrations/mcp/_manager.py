"""McpManager: one MCP server, started in the background, reconnected once when it drops.

The SDK is imported lazily (first :meth:`McpManager.start`), never when this module loads,
so ``%load_ext zengine`` does not pay for it.

States (:class:`~zengine_jupyter.protocol.McpServerStatus`): ``starting`` -> ``ready`` or
``failed`` (with a reason); a ready server that drops becomes ``disconnected``: its tools stay
listed and the next request reconnects it once before giving up with
:class:`~zengine_jupyter.protocol.McpConnectionError`. A tool call in flight when the server
drops is never sent again (the tool may have run): it fails with an error saying so, and the
reconnect is for the next call. Reads (resources, prompts) have no side effects and are resent
once. :meth:`aclose` is idempotent and always stops (and reaps) a stdio server's process.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from zengine_jupyter.config import data_dir
from zengine_jupyter.integrations.mcp._deadlines import Deadlines
from zengine_jupyter.integrations.mcp._entry import expand_env, expand_values
from zengine_jupyter.integrations.mcp._naming import qualified_name, sanitize
from zengine_jupyter.protocol import ConfigError, McpConnectionError, McpRequestError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping
    from types import TracebackType

    from zengine_jupyter.integrations.mcp._connection import Connection
    from zengine_jupyter.integrations.mcp._entry import McpServerEntry
    from zengine_jupyter.integrations.mcp._types import (
        McpCallResult,
        McpPrompt,
        McpPromptResult,
        McpResource,
        McpResourceContent,
        McpTool,
    )
    from zengine_jupyter.protocol import McpServerState, McpServerStatus

__all__ = ["McpManager", "McpManagerOptions"]

_STOP_GRACE_S = 10.0
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class McpManagerOptions:
    """How a manager connects; the defaults suit a chat."""

    root: Path | None = None
    """A stdio server's default folder and the base of a relative ``cwd`` (the project root)."""
    startup_timeout_s: float = 30.0
    request_timeout_s: float = 300.0
    protocol: Literal["auto", "legacy"] = "auto"
    """``auto``: the 2026-07-28 protocol when the server speaks it, else the initialize
    handshake (2025-11-25). ``legacy`` forces the handshake."""
    environ: Mapping[str, str] | None = None
    """Where ``${VAR}`` values come from; ``None`` = ``os.environ``."""
    log_dir: Path | None = None
    """Where a stdio server's stderr is appended (``<server>.log``); ``None`` = data folder."""


class McpManager:
    """One MCP server for one chat. Create, :meth:`start`, use, :meth:`aclose`."""

    def __init__(
        self,
        entry: McpServerEntry,
        options: McpManagerOptions | None = None,
        *,
        on_change: Callable[[McpManager], None] | None = None,
    ) -> None:
        self.entry = entry
        self.options = options or McpManagerOptions()
        self._on_change = on_change
        self._state: McpServerState = "stopped"
        self._reason: str | None = None
        self._conn: Connection | None = None
        self._task: asyncio.Task[None] | None = None
        self._tools: tuple[McpTool, ...] = ()
        self._prompts: tuple[McpPrompt, ...] = ()
        self._version = 0
        self._changed = asyncio.Event()
        self._reconnect_lock = asyncio.Lock()
        self._closed = False
        self._ever_ready = False
        self._deadlines = Deadlines(self.options.request_timeout_s)

    # ------------------------------------------------------------------ state
    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def status(self) -> McpServerStatus:
        from zengine_jupyter.protocol import McpServerStatus

        conn = self._conn
        return McpServerStatus(
            name=self.name,
            transport=self.entry.transport,
            state=self._state,
            reason=self._reason,
            tool_count=len(self._tools),
            protocol_version=conn.protocol_version if conn is not None else None,
        )

    @property
    def tools(self) -> tuple[McpTool, ...]:
        """The agent's tools from it (minus ``disabled_tools``); kept while disconnected."""
        return self._tools

    @property
    def prompts(self) -> tuple[McpPrompt, ...]:
        return self._prompts

    @property
    def tools_version(self) -> int:
        """Grows each time the tool or prompt list changes."""
        return self._version

    # ------------------------------------------------------------- lifecycle
    def start(self) -> None:
        """Start connecting in the background (needs a running loop); returns at once."""
        if self._closed:
            raise McpConnectionError(self.name, f"MCP server {self.name!r} was closed")
        if self._task is None:
            self._begin()

    async def wait_ready(self, timeout_s: float | None = None) -> McpServerStatus:
        """Wait until the current start attempt has finished (``ready`` or ``failed``)."""
        conn = self._conn
        if conn is not None:
            async with asyncio.timeout(timeout_s):
                await self._settled(conn)
        return self.status

    async def _settled(self, conn: Connection) -> None:
        """Until ``conn`` is ready, or its attempt has ended and its state is recorded."""
        await conn.ready.wait()
        task = self._task
        # No client after ready: the attempt failed or ended. (A connection a request saw drop
        # is not alive either, but its task may run until it is stopped: never wait for it.)
        if conn.client is None and task is not None and self._conn is conn:
            await asyncio.wait({task})

    async def aclose(self) -> None:
        """Stop the server (its process is reaped); safe to call more than once."""
        self._closed = True
        await self._stop_current()
        self._set_state("stopped", None)

    async def __aenter__(self) -> McpManager:
        self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # ------------------------------------------------------------- requests
    def call_tool(
        self, tool: str, arguments: Mapping[str, Any] | None = None
    ) -> Awaitable[McpCallResult]:
        """Call the server's tool ``tool`` (its own name, see :attr:`McpTool.name`). Returns
        the request itself, not a coroutine awaiting it: one frame less to resume at each step
        of every call (issue 25)."""
        from zengine_jupyter.integrations.mcp._connection import to_call_result

        args = dict(arguments or {})
        return self._request(
            f"tool {tool!r}", lambda c: c.call_tool(tool, args), resend=False,
            convert=to_call_result,
        )  # fmt: skip

    async def list_resources(self) -> tuple[McpResource, ...]:
        from zengine_jupyter.integrations.mcp._connection import list_resources, to_resources

        if self._conn is not None and self._conn.client is not None:
            caps = self._conn.client.server_capabilities
            if caps.resources is None:
                return ()
        return to_resources(self.name, await self._request("resources/list", list_resources))

    async def read_resource(self, uri: str) -> tuple[McpResourceContent, ...]:
        from zengine_jupyter.integrations.mcp._connection import to_resource_contents

        result = await self._request(f"resource {uri!r}", lambda c: c.read_resource(uri))
        return to_resource_contents(result)

    async def get_prompt(
        self, prompt: str, arguments: Mapping[str, str] | None = None
    ) -> McpPromptResult:
        from zengine_jupyter.integrations.mcp._connection import to_prompt_result

        args = dict(arguments or {})
        result = await self._request(f"prompt {prompt!r}", lambda c: c.get_prompt(prompt, args))
        return to_prompt_result(result)

    async def wait_tools_changed(self, after_version: int, timeout_s: float = 10.0) -> int:
        """Wait until :attr:`tools_version` exceeds ``after_version``; returns the new one."""
        async with asyncio.timeout(timeout_s):
            while self._version <= after_version:
                await self._changed.wait()
        return self._version

    async def _request(
        self,
        what: str,
        call: Callable[[Any], Awaitable[Any]],
        *,
        resend: bool = True,
        convert: Callable[[Any], Any] | None = None,
    ) -> Any:
        """Send ``call``, reconnecting a dead connection once first. ``resend``: whether a
        request lost in flight may be sent again (only for requests without side effects).
        ``convert``: applied to the answer (an SDK type into ours)."""
        from zengine_jupyter.integrations.mcp._connection import ConnectionLost, RequestRejected

        if self._closed:
            raise McpConnectionError(self.name, f"MCP server {self.name!r} was closed")
        if self._task is None:
            self._begin()
        conn = self._conn
        assert conn is not None
        if conn.client is None:  # else ready (it is set only then): no await for it
            await self._settled(conn)
        retried = False
        if not conn.alive:
            conn = await self._reconnect(conn)
            retried = True
        deadlines = self._deadlines
        deadlines.limit_s = self.options.request_timeout_s
        while True:
            task = deadlines.start()  # the deadline: one shared timer
            try:
                try:
                    result = await conn.request(call)
                finally:
                    overdue = deadlines.done(task)
                return result if convert is None else convert(result)
            except asyncio.CancelledError as exc:
                if not overdue:  # cancelled from outside: stays a cancel
                    raise
                raise McpRequestError(
                    self.name,
                    f"MCP server {self.name!r} did not answer {what} within "
                    f"{self.options.request_timeout_s:g} s",
                ) from exc
            except RequestRejected as exc:
                raise McpRequestError(
                    self.name, f"MCP server {self.name!r} rejected {what}: {exc}"
                ) from exc
            except ConnectionLost as exc:
                self._mark_dropped(conn, str(exc))
                if exc.in_flight and not resend:
                    raise McpConnectionError(
                        self.name,
                        f"MCP server {self.name!r} dropped the connection during this call: "
                        "it may or may not have run; check before calling it again",
                        hint=self._hint(),
                    ) from exc
                if retried:
                    raise McpConnectionError(
                        self.name,
                        f"MCP server {self.name!r} dropped the connection again after a "
                        f"reconnect ({what}): {exc}",
                        hint=self._hint(),
                    ) from exc
                conn = await self._reconnect(conn)
                retried = True

    # ------------------------------------------------------------ internals
    def _begin(self) -> None:
        from zengine_jupyter.integrations.mcp._connection import Connection

        self._set_state("starting", None)
        try:
            spec = self._spec()
        except ConfigError as exc:
            conn = Connection(_failed_spec(self.name), self._lists_changed)
            conn.error = exc
            conn.ready.set()
            conn.ended.set()
            self._conn = conn
            self._task = None
            self._set_state("failed", str(exc))
            return
        conn = Connection(spec, self._lists_changed)
        self._conn = conn
        self._task = asyncio.get_running_loop().create_task(
            self._supervise(conn), name=f"mcp:{self.name}"
        )

    async def _supervise(self, conn: Connection) -> None:
        """Run one connection to its end; record how it ended."""
        from zengine_jupyter.integrations.mcp._connection import describe

        await conn.run()
        if self._conn is conn and not self._closed and conn.error is not None:
            if self._state == "starting":
                reason = describe(conn.error, starting=conn.spec.command is not None)
                self._set_state("failed", self._with_log(reason, conn))
            else:
                self._mark_dropped(conn, describe(conn.error))

    def _spec(self) -> Any:
        from zengine_jupyter.integrations.mcp._connection import ConnectSpec

        entry, opts = self.entry, self.options
        environ = os.environ if opts.environ is None else opts.environ
        where = f"mcp.servers.{entry.name}"
        cwd: Path | None = None
        if entry.command is not None:
            base = opts.root or Path.cwd()
            cwd = base if entry.cwd is None else (base / entry.cwd)
        log_dir = opts.log_dir or (data_dir() / "logs" / "mcp")
        return ConnectSpec(
            server=entry.name,
            command=entry.command,
            args=entry.args,
            env=expand_values(entry.env, environ, where=f"{where}.env"),
            cwd=cwd,
            url=expand_env(entry.url, environ, where=f"{where}.url") if entry.url else None,
            headers=expand_values(entry.headers, environ, where=f"{where}.headers"),
            mode=opts.protocol,
            errlog=log_dir / f"{sanitize(entry.name)}.log" if entry.command else None,
            startup_timeout_s=opts.startup_timeout_s,
        )

    async def _reconnect(self, failed: Connection) -> Connection:
        async with self._reconnect_lock:
            current = self._conn
            if current is not None and current is not failed and current.alive:
                return current  # another request already reconnected
            never_started = not self._ever_ready
            await self._stop_current()
            if self._closed:
                raise McpConnectionError(self.name, f"MCP server {self.name!r} was closed")
            self._begin()
            conn = self._conn
            assert conn is not None
            await self._settled(conn)
            if not conn.alive:
                verb = "started" if never_started else "reconnected"
                raise McpConnectionError(
                    self.name,
                    f"MCP server {self.name!r} could not be {verb}: {self._reason}",
                    hint=self._hint(),
                )
            return conn

    async def _stop_current(self) -> None:
        conn, task = self._conn, self._task
        self._task = None
        if conn is not None:
            conn.stop()
        if task is not None and conn is not None and not conn.ready.is_set():
            task.cancel()  # still connecting: nothing to wind down gracefully
        if task is not None and not task.done():
            # asyncio.wait never raises the task's own outcome (we may have cancelled it).
            await asyncio.wait({task}, timeout=_STOP_GRACE_S)
            if not task.done():
                task.cancel()
                await asyncio.wait({task})

    def _publish(self, conn: Connection) -> None:
        from zengine_jupyter.integrations.mcp._connection import to_prompt, to_tools

        self._tools = to_tools(self.name, conn.tools, self.entry.disabled_tools)
        self._prompts = tuple(
            to_prompt(self.name, qualified_name(self.name, p.name), p) for p in conn.prompts
        )
        self._version += 1
        self._notify()

    def _lists_changed(self, conn: Connection) -> None:
        """The connection listed (first time: it is ready) or re-listed tools and prompts."""
        if conn is self._conn:
            self._publish(conn)
            if self._state in ("starting", "disconnected"):
                self._ever_ready = True
                self._set_state("ready", None)

    def _mark_dropped(self, conn: Connection, reason: str) -> None:
        if conn is self._conn and self._state in ("ready", "disconnected"):
            self._set_state("disconnected", f"{reason}; the next call reconnects it")

    def _set_state(self, state: McpServerState, reason: str | None) -> None:
        self._state, self._reason = state, reason
        self._notify()

    def _notify(self) -> None:
        if self._on_change is not None:
            try:
                self._on_change(self)
            except Exception:  # a listener's bug must not take the connection down
                _log.exception("MCP server %r: on_change listener failed", self.name)
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    def _with_log(self, reason: str, conn: Connection) -> str:
        tail = conn.stderr_tail()
        return f"{reason}; its last output: {tail}" if tail else reason

    def _hint(self) -> str:
        where = f"[mcp.servers.{self.name}]"
        if self.entry.command is not None:
            logs = self.options.log_dir or data_dir() / "logs" / "mcp"
            return f"check {where} and the server's log in {logs}"
        return f"check that {self.entry.display_target()} is reachable and {where} is right"


def _failed_spec(server: str) -> Any:
    from zengine_jupyter.integrations.mcp._connection import ConnectSpec

    return ConnectSpec(server, None, (), {}, None, None, {}, "auto", None, 0.0)
