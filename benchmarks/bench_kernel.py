"""Event-loop lag inside a real kernel while an ``%%agent`` turn streams (issue: p99 < 20 ms).

A ticker task in the kernel sleeps 1 ms at a time and records how late it wakes. Ours: during
an ``%%agent`` turn of two responses of 2,500 text deltas with a Read and a Bash call, its
events streamed to the turn widget. Baseline: during a bare httpx read of the same two
streams in the same kernel. The fake provider runs in this process, on its own thread.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import tempfile
from pathlib import Path

from benchmarks._harness import Benchmark
from zengine_jupyter.testing import Reply, ScriptedToolCall, provider_in_thread
from zengine_jupyter.testing.kernel import KernelHarness, has_event, running_kernel, widget_id

_PIECES = tuple(f"w{i} " for i in range(2_500))
_TICKER = """
import asyncio, statistics, time
_zlags, _zdone = [], asyncio.Event()
async def _ztick():
    while not _zdone.is_set():
        t = time.perf_counter()
        await asyncio.sleep(0.001)
        _zlags.append(time.perf_counter() - t - 0.001)
_ztask = asyncio.get_running_loop().create_task(_ztick())
"""
_STOP = "_zdone.set()\nawait _ztask\nprint(statistics.quantiles(_zlags, n=100)[98])"
_BARE = """
import httpx
async def _zread():
    body = {"model": "claude-sonnet-4-6", "max_tokens": 100, "stream": True,
            "messages": [{"role": "user", "content": "go"}]}
    headers = {"anthropic-version": "2023-06-01", "x-api-key": "k"}
    async with httpx.AsyncClient() as client:
        for _ in range(2):
            async with client.stream("POST", "%s/v1/messages", json=body, headers=headers) as r:
                async for _line in r.aiter_lines():
                    pass
await _zread()
"""


class _Rig:
    """One kernel and one provider for every sample (a kernel start is not what we measure)."""

    def __init__(self) -> None:
        self.stack = contextlib.ExitStack()
        tmp = Path(self.stack.enter_context(tempfile.TemporaryDirectory()))
        os.environ["ZENGINE_HOME"] = str(tmp)
        os.environ.setdefault("ANTHROPIC_API_KEY", "bench-key")
        self.server = self.stack.enter_context(provider_in_thread())
        (tmp / "settings.toml").write_text(
            f'[provider]\nkind = "anthropic"\nbase_url = "{self.server.base_url}"\n'
            '[model]\nmain = "claude-sonnet-4-6"\n[permissions]\nallow = ["Bash"]\n'
        )
        project = tmp / "p"
        project.mkdir()
        (project / "a.py").write_text("x = 1\n")
        self.kernel: KernelHarness = self.stack.enter_context(running_kernel(project))
        self.kernel.execute("%load_ext zengine")
        atexit.register(self.stack.close)

    def _replies(self) -> None:
        calls = (ScriptedToolCall("Read", {"path": "a.py"}),
                 ScriptedToolCall("Bash", {"command": "echo hi"}))  # fmt: skip
        self.server.add(Reply(text=_PIECES, tool_calls=calls), Reply(text=_PIECES))

    def p99(self, turn: bool) -> float:
        self._replies()
        self.kernel.execute(_TICKER)
        if turn:
            cell = self.kernel.execute("%%agent\ngo\n")
            self.kernel.widget_messages(widget_id(cell), has_event("turn_result"), timeout=120)
        else:
            self.kernel.execute(_BARE % self.server.base_url)
        return float(self.kernel.execute(_STOP).text.strip().splitlines()[-1])


_rig: _Rig | None = None


def _measure(turn: bool) -> float:
    global _rig
    if _rig is None:
        _rig = _Rig()
    return _rig.p99(turn)


def benchmarks() -> list[Benchmark]:
    os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")
    return [
        Benchmark("kernel loop lag p99: %%agent turn (5,000 deltas + tools) vs bare httpx read",
                  lambda: _measure(True), lambda: _measure(False), repeat=1),
    ]  # fmt: skip
