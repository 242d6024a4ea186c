"""Issue 19.3: a ``tied`` command (the agent's shell commands) never outlives the engine.

A small engine process (a real Python running ``host.open_process`` with ``tied=True``) starts
a command that sleeps before its side effects, in the foreground, in a background subshell and
in a ``setsid`` grandchild that leaves the process group; the engine is SIGKILLed at a random
moment while they sleep. Then: no side effect, no process left. Also the ordinary paths: the exit
status is the command's, leftovers end with the command, and stopping it reaches every process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import sys
import time
from pathlib import Path

import pytest

from zengine_jupyter.host import RunOptions, open_process, run
from zengine_jupyter.protocol import ProcessError
from zengine_jupyter.testing import running_processes

ENGINE = """
import asyncio, sys
from pathlib import Path
from zengine_jupyter.host import RunOptions, open_process

async def main():
    options = RunOptions(cwd=Path(sys.argv[1]), tied=True)
    async with open_process(["bash", "-c", sys.argv[2]], options, merge_stderr=True) as proc:
        await proc.wait()

asyncio.run(main())
"""


def _token() -> str:
    return f"{random.randrange(10**6):06d}"


def _sleepers(duration: str) -> str:
    return (
        f"setsid sh -c 'sleep {duration}; touch side-setsid' >/dev/null 2>&1 & "
        f"(sleep {duration}; touch side-sub) & "
        f"touch started; sleep {duration}; touch side-fg"
    )


def _cleanup(token: str) -> None:
    for pid in running_processes(token):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


async def _kill_round(base: Path, engine: Path, n: int, token: str) -> tuple[list[str], int]:
    folder = base / f"round-{n}"
    folder.mkdir()
    duration = f"1.{token}{n:02d}"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(engine), str(folder), _sleepers(duration)
    )
    deadline = time.monotonic() + 60
    while not (folder / "started").exists():
        assert proc.returncode is None, "the engine ended before the command started"
        assert time.monotonic() < deadline, "the command never started"
        await asyncio.sleep(0.01)
    started = time.monotonic()
    await asyncio.sleep(random.random() * 0.4)
    proc.kill()
    await proc.wait()
    await asyncio.sleep(max(0.0, started + float(duration) + 0.5 - time.monotonic()))
    return sorted(p.name for p in folder.glob("side-*")), len(running_processes(duration))


async def test_sigkill_of_the_engine_kills_the_whole_command_tree(tmp_path: Path) -> None:
    """Attack (fault): SIGKILL the engine while its shell command sleeps before a side effect:
    the command, its background job and a setsid grandchild live on and do it anyway."""
    engine = tmp_path / "engine.py"
    engine.write_text(ENGINE)
    token = _token()
    limit = asyncio.Semaphore(5)

    async def one(n: int) -> tuple[list[str], int]:
        async with limit:
            return await _kill_round(tmp_path, engine, n, token)

    try:
        results = await asyncio.gather(*(one(n) for n in range(20)))
    finally:
        _cleanup(f"1.{token}")
    sides = [(n, s) for n, (s, _) in enumerate(results) if s]
    orphans = sum(o for _, o in results)
    assert (sides, orphans) == ([], 0)


async def test_leftovers_end_with_the_command_and_its_status_is_kept(tmp_path: Path) -> None:
    token = _token()
    script = f"(sleep 3.{token}; touch late) & setsid sleep 3.{token} & echo out; exit 7"
    started = time.monotonic()
    done = await run(["bash", "-c", script], RunOptions(cwd=tmp_path, tied=True, timeout_s=20))
    assert time.monotonic() - started < 2.5  # the leftovers held no pipe open
    assert (done.returncode, done.stdout) == (7, b"out\n")
    assert running_processes(f"3.{token}") == []
    killed = await run(["bash", "-c", "kill -TERM $$"], RunOptions(tied=True))
    assert killed.returncode == -signal.SIGTERM  # a signal death is reported as such
    with pytest.raises(ProcessError, match="no-such-program-zz"):
        await run(["no-such-program-zz"], RunOptions(tied=True))


async def test_stopping_a_tied_command_reaches_every_process(tmp_path: Path) -> None:
    """A command that ignores SIGTERM and hides a sleeper in its own session is still
    stopped, all of it, when the engine stops it (deadline, interrupt, closing)."""
    token = _token()
    script = f"trap '' TERM; setsid sleep 30.{token} & sleep 30.{token}; touch late"
    options = RunOptions(cwd=tmp_path, tied=True)
    started = time.monotonic()
    async with open_process(["bash", "-c", script], options) as proc:
        while len(running_processes(f"30.{token}")) < 2:
            assert time.monotonic() - started < 30
            await asyncio.sleep(0.02)
        assert proc.returncode is None
    try:
        assert running_processes(f"30.{token}") == []
        assert not (tmp_path / "late").exists()
    finally:
        _cleanup(f"30.{token}")
