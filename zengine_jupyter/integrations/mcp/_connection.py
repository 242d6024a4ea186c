"""The only module that imports the ``mcp`` SDK (~0.6 s): :class:`McpManager` imports it lazily.

A :class:`Connection` is one live client session. The SDK's anyio scopes must be entered and
left by the same task, so each connection runs in a task of its own (:meth:`Connection.run`);
requests from any task go through the entered ``mcp.Client``. Third-party exceptions are
translated here (``raise ... from exc``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

import anyio
import anyio.abc
import httpx2
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from zengine_jupyter._version import __version__
from zengine_jupyter.config import open_private, private_dir
from zengine_jupyter.host import search_path
from zengine_jupyter.integrations.mcp._delivery import Delivery, RefusalAwareClient
from zengine_jupyter.integrations.mcp._naming import qualify_tools
from zengine_jupyter.integrations.mcp._types import (
    McpCallResult,
    McpContent,
    McpPrompt,
    McpPromptArgument,
    McpPromptMessage,
    McpPromptResult,
    McpResource,
    McpResourceContent,
    McpTool,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
    from pathlib import Path

    from mcp.client._transport import TransportStreams

__all__ = ["ConnectSpec", "Connection", "ConnectionLost", "RequestRejected"]

_log = logging.getLogger(__name__)
_PAGE_CAP = 100
_LOG_CAP = 1 << 20
"""A stdio server's log file is started afresh when it has grown past 1 MiB."""
_TAIL_BYTES = 4096


_DROPPED = (anyio.ClosedResourceError, anyio.BrokenResourceError, httpx2.TransportError)
"""How a dead connection shows besides the SDK's ``CONNECTION_CLOSED`` error."""


class ConnectionLost(Exception):
    """The connection is gone (process exited, socket dropped); the request did not complete.

    ``in_flight``: the request had been handed to the connection, so the server may have
    received it and acted on it; ``False`` when the connection was known dead before it left.
    """

    def __init__(self, reason: str, *, in_flight: bool = False) -> None:
        super().__init__(reason)
        self.in_flight = in_flight


class RequestRejected(Exception):
    """The server answered with a JSON-RPC error."""


@dataclass(frozen=True)
class ConnectSpec:
    """Everything needed to open one connection; values are already ``${VAR}``-expanded."""

    server: str
    command: str | None
    args: tuple[str, ...]
    env: Mapping[str, str]
    cwd: Path | None
    url: str | None
    headers: Mapping[str, str]
    mode: str
    """``auto`` (2026-07-28 when the server speaks it, else the handshake) or ``legacy``."""
    errlog: Path | None
    """Where a stdio server's stderr goes (appended)."""
    startup_timeout_s: float


@contextlib.asynccontextmanager
async def _http_transport(url: str, headers: Mapping[str, str]) -> AsyncIterator[TransportStreams]:
    timeout = httpx2.Timeout(30.0, read=300.0)
    async with (
        RefusalAwareClient(headers=dict(headers), timeout=timeout) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


class Connection:
    """One client session, owned by the task running :meth:`run`."""

    def __init__(self, spec: ConnectSpec, on_lists: Callable[[Connection], None]) -> None:
        self.spec = spec
        self.client: Client | None = None
        self.protocol_version: str | None = None
        self.error: BaseException | None = None
        """Why it ended: set when the start failed or the connection dropped (not on stop)."""
        self.tools: list[types.Tool] = []
        self.prompts: list[types.Prompt] = []
        self.ready = asyncio.Event()
        """Set once the handshake and the first listing are done, or the start failed."""
        self.ended = asyncio.Event()
        self._stop = asyncio.Event()
        self._changed = asyncio.Event()
        self._on_lists = on_lists
        self._errlog: TextIO | None = None
        self._log_offset = 0
        self._lost = False
        """A request saw the connection drop, before :meth:`run` has noticed (it soon will)."""

    @property
    def alive(self) -> bool:
        # ``client`` is set once ready and cleared before ``ended`` is set: no event to ask
        return self.client is not None and not self._lost

    def stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        """Connect, list, then serve until :meth:`stop` or until the connection drops."""
        try:
            async with contextlib.AsyncExitStack() as stack:
                client = Client(
                    self._transport(),
                    mode=self.spec.mode,
                    message_handler=self._on_message,
                    client_info=types.Implementation(name="zengine-jupyter", version=__version__),
                    cache=None,
                )
                deadline = asyncio.get_running_loop().time() + self.spec.startup_timeout_s
                async with asyncio.timeout_at(deadline):
                    await stack.enter_async_context(client)
                    self.protocol_version = client.protocol_version
                async with anyio.create_task_group() as tg:
                    tg.start_soon(self._refresher, client)
                    async with asyncio.timeout_at(deadline):
                        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                            # Subscribed before the first listing: no change can fall between.
                            await tg.start(self._listener, client)
                        await self._refresh(client)
                    self.client = client
                    self.ready.set()
                    self._on_lists(self)
                    await self._stop.wait()
                    tg.cancel_scope.cancel()
        except asyncio.CancelledError:
            if not self._stop.is_set():
                self.error = ConnectionLost("the connection was cancelled")
            raise
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # the SDK raises (base) groups; any failure ends the session
            if not self._stop.is_set():
                self.error = exc
        finally:
            self.client = None
            if self._errlog is not None:
                self._errlog.close()
            self.ready.set()
            self.ended.set()

    def _transport(self) -> contextlib.AbstractAsyncContextManager[TransportStreams]:
        spec = self.spec
        if spec.command is None:
            return _http_transport(spec.url or "", spec.headers)
        # the SDK's own environment would pass PATH as it is: its relative entries would find
        # the project's programs (host.search_path); a configured PATH is kept as given
        env = {"PATH": search_path(), **spec.env}
        params = StdioServerParameters(
            command=spec.command, args=list(spec.args), env=env, cwd=spec.cwd
        )
        if spec.errlog is not None:
            private_dir(spec.errlog.parent)
            open_private(spec.errlog, "ab").close()  # created (or tightened) 0600 first
            too_big = spec.errlog.exists() and spec.errlog.stat().st_size > _LOG_CAP
            self._errlog = spec.errlog.open("w" if too_big else "a", encoding="utf-8")
            self._errlog.write(f"--- zengine: starting {spec.command}\n")
            self._errlog.flush()
            self._log_offset = self._errlog.tell()
            return stdio_client(params, errlog=self._errlog)
        return stdio_client(params)

    async def _on_message(self, message: Any) -> None:
        if isinstance(
            message, types.ToolListChangedNotification | types.PromptListChangedNotification
        ):
            self._changed.set()  # refetch from the refresher task, never inside the receive loop
        elif isinstance(message, Exception):
            _log.debug("MCP server %r transport fault: %r", self.spec.server, message)

    async def _listener(
        self, client: Client, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """2026-07-28: list changes arrive only on a ``subscriptions/listen`` stream."""
        started = False
        try:
            async with client.listen(tools_list_changed=True, prompts_list_changed=True) as sub:
                task_status.started()
                started = True
                async for _event in sub:
                    self._changed.set()
                    # A change during the refetch must not be lost: the refresher re-reads.
        except (ListenNotSupportedError, MCPError):
            pass  # the server offers no change events: lists refresh on reconnect only
        except SubscriptionLost:
            if started:
                self.error = ConnectionLost("the server's event stream dropped")
                self._stop.set()
        if not started:
            task_status.started()

    async def _refresher(self, client: Client) -> None:
        while True:
            await self._changed.wait()
            self._changed.clear()
            try:
                await self._refresh(client)
            except Exception as exc:  # a dead connection shows on the next call
                _log.debug("MCP server %r: refreshing lists failed: %r", self.spec.server, exc)
                continue
            self._on_lists(self)

    async def _refresh(self, client: Client) -> None:
        caps = client.server_capabilities
        self.tools = await _all_pages(client.list_tools, "tools") if caps.tools else []
        self.prompts = await _all_pages(client.list_prompts, "prompts") if caps.prompts else []

    async def request(self, call: Callable[[Client], Awaitable[Any]]) -> Any:
        """Run ``call`` on the live client, translating a dropped connection and errors.

        A drop after the request was handed over raises ``ConnectionLost(in_flight=True)``
        (the server may have acted on it) and marks the connection dead at once, so the next
        request reconnects first. Only a refused HTTP connection proves nothing was sent; a
        stdio pipe cannot tell a request read just before the crash from one never read.
        """
        client = self.client
        if client is None or self._lost:  # not alive
            raise ConnectionLost(self.lost_reason())
        # Only an HTTP request can be proved never sent; over stdio, skip the tracking.
        delivery = Delivery() if self.spec.url is not None else None
        try:
            if delivery is None:
                return await call(client)
            with delivery:
                return await call(client)
        except MCPError as exc:
            if exc.code != types.CONNECTION_CLOSED:
                raise RequestRejected(exc.message) from exc
            lost: Exception = exc
        except _DROPPED as exc:
            lost = exc
        self._lost = True
        refused = delivery is not None and delivery.refused
        raise ConnectionLost(self.lost_reason(), in_flight=not refused) from lost

    def stderr_tail(self) -> str:
        """The last non-empty line a stdio server wrote to stderr in this connection."""
        log = self.spec.errlog
        if log is None or not log.exists():
            return ""
        with log.open("rb") as f:
            f.seek(max(self._log_offset, log.stat().st_size - _TAIL_BYTES))
            text = f.read(_TAIL_BYTES).decode("utf-8", errors="replace")
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        return lines[-1][:200] if lines else ""

    def lost_reason(self) -> str:
        return describe(self.error) if self.error is not None else "the connection closed"


async def _all_pages(fetch: Callable[..., Awaitable[Any]], attr: str) -> list[Any]:
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(_PAGE_CAP):
        page = await fetch(cursor=cursor)
        items.extend(getattr(page, attr))
        cursor = page.next_cursor
        if cursor is None:
            break
    return items


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in _leaves(sub)]
    return [exc]


def describe(exc: BaseException, *, starting: bool = False) -> str:
    """A one-line reason for a failed start or a drop, without secrets (no headers, no query)."""
    leaves = _leaves(exc)
    leaf = next((e for e in leaves if not isinstance(e, asyncio.CancelledError)), leaves[0])
    if isinstance(leaf, FileNotFoundError):
        return f"the program was not found ({leaf.filename or 'command'})"
    if isinstance(leaf, PermissionError):
        return "the program is not executable (permission denied)"
    if isinstance(leaf, OSError) and not isinstance(leaf, ConnectionError):
        return f"could not start the program: {leaf.strerror or leaf}"
    if isinstance(leaf, MCPError):
        if leaf.code == types.CONNECTION_CLOSED:
            return "the program exited during start-up" if starting else "the connection closed"
        return f"the server answered with an error: {leaf.message}"
    if isinstance(leaf, httpx2.HTTPStatusError):
        return f"HTTP {leaf.response.status_code} from the server"
    if isinstance(leaf, httpx2.ConnectError):
        return "could not connect (connection refused or host unreachable)"
    if isinstance(leaf, httpx2.TimeoutException):
        return "the HTTP request timed out"
    if isinstance(leaf, TimeoutError):
        return "no answer within the start-up deadline"
    if isinstance(leaf, ConnectionLost):
        return str(leaf)
    return f"{type(leaf).__name__}: {leaf}"


def to_tools(server: str, raw: list[types.Tool], disabled: frozenset[str]) -> tuple[McpTool, ...]:
    """The agent's view of a server's tools: qualified names, minus ``disabled``."""
    by_name = {t.name: t for t in raw}
    tools: list[McpTool] = []
    for qualified, own in qualify_tools(server, [t.name for t in raw], disabled).items():
        tool = by_name[own]
        hints = tool.annotations
        tools.append(
            McpTool(
                server=server,
                name=own,
                qualified=qualified,
                description=tool.description or "",
                input_schema=dict(tool.input_schema),
                read_only=bool(hints is not None and hints.read_only_hint),
            )
        )
    return tuple(tools)


def to_call_result(result: types.CallToolResult) -> McpCallResult:
    return McpCallResult(
        content=tuple(map(_content, result.content)),
        is_error=bool(result.is_error),
        structured=result.structured_content,
    )


def _content(block: Any) -> McpContent:
    if isinstance(block, types.TextContent):
        return McpContent("text", text=block.text)
    if isinstance(block, types.ImageContent):
        return McpContent("image", data=block.data, mime_type=block.mime_type)
    if isinstance(block, types.AudioContent):
        return McpContent("audio", data=block.data, mime_type=block.mime_type)
    if isinstance(block, types.EmbeddedResource):
        res = block.resource
        if isinstance(res, types.TextResourceContents):
            return McpContent("text", text=res.text, mime_type=res.mime_type, uri=str(res.uri))
        return McpContent("resource", data=res.blob, mime_type=res.mime_type, uri=str(res.uri))
    if isinstance(block, types.ResourceLink):
        return McpContent("resource", mime_type=block.mime_type, uri=str(block.uri))
    return McpContent("text", text=f"[unsupported content: {getattr(block, 'type', '?')}]")


def to_resources(server: str, result: list[types.Resource]) -> tuple[McpResource, ...]:
    return tuple(
        McpResource(
            server=server,
            uri=str(r.uri),
            name=r.name,
            description=r.description or "",
            mime_type=r.mime_type,
        )
        for r in result
    )


def to_resource_contents(result: types.ReadResourceResult) -> tuple[McpResourceContent, ...]:
    out: list[McpResourceContent] = []
    for c in result.contents:
        if isinstance(c, types.TextResourceContents):
            out.append(McpResourceContent(str(c.uri), c.mime_type, text=c.text))
        else:
            out.append(McpResourceContent(str(c.uri), c.mime_type, blob=c.blob))
    return tuple(out)


def to_prompt(server: str, command: str, p: types.Prompt) -> McpPrompt:
    return McpPrompt(
        server=server,
        name=p.name,
        command=command,
        description=p.description or "",
        arguments=tuple(
            McpPromptArgument(a.name, a.description or "", bool(a.required))
            for a in p.arguments or ()
        ),
    )


def to_prompt_result(result: types.GetPromptResult) -> McpPromptResult:
    return McpPromptResult(
        description=result.description or "",
        messages=tuple(McpPromptMessage(m.role, _content(m.content)) for m in result.messages),
    )


async def list_resources(client: Client) -> list[types.Resource]:
    return await _all_pages(client.list_resources, "resources")
