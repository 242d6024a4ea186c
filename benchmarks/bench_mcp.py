"""MCP tool-call latency: through the engine vs a bare SDK ``mcp.Client`` call, on the same
fixture server, over stdio and streamable HTTP.

"Through the engine" is one call as the turn loop runs it (``engine._calls.run_call``) in a
real chat opened with ``[mcp.servers.bench]`` and ``permissions.allow = ["mcp__bench"]``: the
argument check, the permission gate, the approval and result records appended to the chat's
log, the events, the MCP tool adapter, the hub, the manager, the server. As in a turn, the call
answers a request the chat prepared (``Session.prepare_request``, once at set-up: it fixes
which MCP tools the model may call), with the call environment the turn loop uses
(``Session.call_env``). The call's record, which the provider's adapter parses out of the
model's answer before ``run_call``, is made ahead of each timed call. The bare side calls the
SDK directly on the same server process: over stdio, the ``mcp.Client`` the chat's manager
opened (a stdio server has one client; two copies of the server on a shared 2-core machine
differ by more than the 15 % under test); over HTTP, a client of its own to the one fixture
server on 127.0.0.1. (``McpManager`` alone: see tests/integrations; it adds ~6 us a call.)

Stable on a loaded machine: one sample is ``PAIRS`` calls of ours and ``PAIRS`` of the bare
client, interleaved call by call (alternating which goes first), and keeps each side's fastest
call (as ``timeit`` advises: load only ever adds time, and a call preempted by another program
says nothing about ours); the harness then takes the median of its samples. Both sides see
the same load at the same moments.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks._harness import Benchmark
from zengine_jupyter.testing.mcp_server import running_http_fixture

if TYPE_CHECKING:
    from zengine_jupyter.engine import Session

PAIRS = 40
_ARGS = {"text": "ping"}
Call = Callable[[], Awaitable[object]]


class _Bench:
    """One event loop holding every session for the whole run; torn down at exit."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="bench-mcp-"))
        os.environ["ZENGINE_HOME"] = str(self.tmp / "home")
        self.loop = asyncio.new_event_loop()
        self.stack = contextlib.AsyncExitStack()
        self._bare_tasks: list[asyncio.Task[None]] = []
        self._stop = asyncio.Event()
        self.calls: dict[str, Call] = {}
        self._pending: dict[str, float] = {}
        self.loop.run_until_complete(self._setup())
        atexit.register(self.close)

    async def _setup(self) -> None:
        http = await self.stack.enter_async_context(running_http_fixture())
        for kind, url in (("stdio", None), ("http", http.url)):
            session = await self._engine(kind, url)
            self.calls[f"engine-{kind}"] = _EngineCall(session)
            if url is None:  # the SDK client the engine's manager opened: same process
                client = _sdk_client(session)
            else:  # a client of our own, to the same server
                client = await self._start_bare(url)
            self.calls[f"bare-{kind}"] = _bound(client.call_tool, "echo", _ARGS)

    async def _engine(self, kind: str, url: str | None) -> Session:
        """A real chat with the fixture as ``bench``."""
        from zengine_jupyter.engine import Session, SessionOptions
        from zengine_jupyter.testing import FakeModelClient
        from zengine_jupyter.testing.mcp_chat import mcp_extension, settings_text, stdio_server

        home = self.tmp / "home"
        home.mkdir(parents=True, exist_ok=True)
        table = stdio_server() if url is None else {"url": url}
        (home / "settings.toml").write_text(
            settings_text(None, {"bench": table}, allow=["mcp__bench"])
        )
        project = self.tmp / kind
        project.mkdir()
        session = await Session.open(SessionOptions(project=project, client=FakeModelClient()))
        self.stack.push_async_callback(session.aclose)
        (status,) = await mcp_extension(session).wait_ready(60)
        if status.state != "ready":
            raise RuntimeError(f"{kind} fixture did not start in the chat: {status.reason}")
        return session

    async def _start_bare(self, url: str) -> Any:
        from mcp import Client

        ready: asyncio.Future[Any] = self.loop.create_future()

        async def hold() -> None:
            async with Client(url) as client:
                ready.set_result(client)
                await self._stop.wait()

        self._bare_tasks.append(self.loop.create_task(hold()))
        return await ready

    def pair(self, ours: str, bare: str) -> float:
        """Interleaved calls; returns our median call and keeps the bare one for ``take``."""

        async def run() -> tuple[float, float]:
            a: list[float] = []
            b: list[float] = []
            for i in range(PAIRS):
                order = ((self.calls[ours], a), (self.calls[bare], b))
                for call, into in order if i % 2 == 0 else reversed(order):
                    if isinstance(call, _EngineCall):
                        call.prepare()
                    start = time.perf_counter()
                    await call()
                    into.append(time.perf_counter() - start)
            return min(a), min(b)

        mine, theirs = self.loop.run_until_complete(run())
        self._pending[ours] = theirs
        return mine

    def take(self, ours: str, bare: str) -> float:
        """The bare side of the last :meth:`pair` (or a fresh pair if none is pending)."""
        if ours not in self._pending:
            self.pair(ours, bare)
        return self._pending.pop(ours)

    def close(self) -> None:
        async def teardown() -> None:
            self._stop.set()
            await asyncio.gather(*self._bare_tasks)
            await self.stack.aclose()

        if not self.loop.is_closed():
            self.loop.run_until_complete(teardown())
            self.loop.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _bound(method: Callable[..., Awaitable[object]], *args: Any) -> Call:
    return lambda: method(*args)


def _sdk_client(session: Session) -> Any:
    """The ``mcp.Client`` under the chat's ``bench`` manager (private: a benchmark's peek)."""
    from zengine_jupyter.testing.mcp_chat import mcp_extension

    manager = mcp_extension(session).hub.manager("bench")
    conn = manager._conn if manager is not None else None
    if conn is None or conn.client is None:
        raise RuntimeError("the chat's bench server has no live client")
    return conn.client


class _EngineCall:
    """One ``mcp__bench__echo`` call as the turn loop runs it (gate, log, events, tool)."""

    def __init__(self, session: Session) -> None:
        session.prepare_request()  # the request whose answer holds the calls
        self.env = session.call_env(_new_id())
        self.next: Any = None

    def prepare(self) -> None:
        """The call as the provider's adapter parsed it from the model's answer (a fresh id
        each time): made before ``run_call``, so outside the timed call."""
        from zengine_jupyter.protocol._records import RecordedToolCall

        self.next = RecordedToolCall(id=_new_id(), name="mcp__bench__echo", input=_ARGS)

    async def __call__(self) -> object:
        from zengine_jupyter.engine._calls import run_call

        call, self.next = self.next, None
        if call is None:
            raise RuntimeError("prepare() comes before each call")
        record, _ = await run_call(self.env, call)
        if record.is_error or record.output != "ping":
            raise RuntimeError(f"the engine's call failed: {record.output}")
        return record


def _new_id() -> str:
    from zengine_jupyter.protocol._records import new_id

    return new_id()


def benchmarks() -> list[Benchmark]:
    bench: list[_Bench] = []

    def get() -> _Bench:
        if not bench:
            bench.append(_Bench())
        return bench[0]

    def row(via: str, label: str, kind: str) -> Benchmark:
        ours, bare = f"{via}-{kind}", f"bare-{kind}"
        return Benchmark(
            f"mcp tool call ({kind}) via {label} vs bare mcp.Client",
            ours=lambda: get().pair(ours, bare),
            baseline=lambda: get().take(ours, bare),
            repeat=15,
            max_ratio=1.1 if kind == "stdio" else 1.15,  # issue 25: stdio at most 1.1x
        )

    return [row("engine", "the engine (run_call)", kind) for kind in ("stdio", "http")]
