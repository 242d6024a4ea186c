"""MCP tool-call latency: through our McpManager vs a bare SDK ``mcp.Client``, same server.

stdio: each side starts its own copy of the fixture server (the same program); HTTP: both
sides talk to one fixture server on 127.0.0.1. One sample = the mean of ``CALLS`` ``echo``
calls on an already-connected session; the harness takes the median of interleaved samples.
Short samples and many repeats keep the two sides interleaved finely: on a shared machine the
load drifts faster than a long sample lasts. (The wrapper itself costs ~6 us per call.)
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import time
from typing import TYPE_CHECKING, Any

from benchmarks._harness import Benchmark
from zengine_jupyter.integrations.mcp import McpManager, McpServerEntry
from zengine_jupyter.testing.mcp_server import fixture_argv, running_http_fixture, stdio_entry

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

CALLS = 50
_ARGS = {"text": "ping"}


class _Bench:
    """One event loop holding every session for the whole run; torn down at exit."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.stack = contextlib.AsyncExitStack()
        self._bare_tasks: list[asyncio.Task[None]] = []
        self._stop = asyncio.Event()
        self.managers: dict[str, McpManager] = {}
        self.bare: dict[str, Any] = {}
        self.loop.run_until_complete(self._setup())
        atexit.register(self.close)

    async def _setup(self) -> None:
        http = await self.stack.enter_async_context(running_http_fixture())
        entries = {"stdio": stdio_entry("bench"), "http": McpServerEntry("bench", url=http.url)}
        for kind, entry in entries.items():
            manager = McpManager(entry)
            await self.stack.enter_async_context(manager)
            status = await manager.wait_ready(60)
            if status.state != "ready":
                raise RuntimeError(f"{kind} fixture did not start: {status.reason}")
            self.managers[kind] = manager
        await self._start_bare("stdio", None)
        await self._start_bare("http", http.url)

    async def _start_bare(self, kind: str, url: str | None) -> None:
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client

        ready = asyncio.Event()

        async def hold() -> None:
            with open(os.devnull, "w") as devnull:  # noqa: PTH123, ASYNC230 (no I/O wait)
                if url is None:
                    argv = fixture_argv()
                    params = StdioServerParameters(command=argv[0], args=argv[1:])
                    target: Any = stdio_client(params, errlog=devnull)
                else:
                    target = url
                async with Client(target) as client:
                    self.bare[kind] = client
                    ready.set()
                    await self._stop.wait()

        self._bare_tasks.append(self.loop.create_task(hold()))
        await ready.wait()

    def sample(self, call: Callable[[], Awaitable[object]]) -> float:
        async def many() -> float:
            start = time.perf_counter()
            for _ in range(CALLS):
                await call()
            return (time.perf_counter() - start) / CALLS

        return self.loop.run_until_complete(many())

    def close(self) -> None:
        async def teardown() -> None:
            self._stop.set()
            await asyncio.gather(*self._bare_tasks)
            await self.stack.aclose()

        if not self.loop.is_closed():
            self.loop.run_until_complete(teardown())
            self.loop.close()


def benchmarks() -> list[Benchmark]:
    bench: list[_Bench] = []

    def get() -> _Bench:
        if not bench:
            bench.append(_Bench())
        return bench[0]

    def ours(kind: str) -> Callable[[], float]:
        return lambda: get().sample(lambda: get().managers[kind].call_tool("echo", _ARGS))

    def bare(kind: str) -> Callable[[], float]:
        return lambda: get().sample(lambda: get().bare[kind].call_tool("echo", _ARGS))

    return [
        Benchmark(
            f"mcp tool call ({kind}) via McpManager vs bare mcp.Client",
            ours=ours(kind),
            baseline=bare(kind),
            repeat=21,
            max_ratio=1.15,
        )
        for kind in ("stdio", "http")
    ]
