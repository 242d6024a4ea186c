"""Issue 19.3, acceptance 2: SIGKILL of ``zengine run`` while a Bash command sleeps before
its side effect. The command's whole tree must die with the engine: 0 side effects, 0 orphans.

Each round is a real ``zengine run --yes`` (the real CLI, a subprocess) whose scripted model
calls Bash with three sleepers before their side effects (``touch side-*``): a foreground
sleep, a background subshell, and a ``setsid`` grandchild that leaves the process group. Once
the command has written its ``started`` marker, the CLI is SIGKILLed; after the sleeps would
have ended, no ``side-*`` file may exist and no process whose command line holds the round's
token may run.
Rounds run a few at a time to keep the test short; the sandbox on (real bubblewrap) and off.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import time
from pathlib import Path

import pytest

from zengine_jupyter.testing import (
    ZENGINE,
    ProviderServer,
    Reply,
    ScriptedToolCall,
    configured_provider,
    running_processes,
    write_provider_settings,
)
from zengine_jupyter.testing.components import require_component

ROUNDS = 20
AT_ONCE = 6
SLEEP_S = 2  # the integer part; each round adds its own unique fraction
STALLED = "stalled"


def _command(duration: str) -> str:
    return (
        f"setsid sh -c 'sleep {duration}; touch side-setsid' >/dev/null 2>&1 & "
        f"(sleep {duration}; touch side-sub) & "
        f"touch started; sleep {duration}; touch side-fg"
    )


async def _round(base: Path, n: int, token: str, *, sandbox: bool) -> tuple[int, int, str]:
    """One kill; returns (side effects, orphans, what went wrong before the kill or '')."""
    project, home = base / "proj", base / "home"
    project.mkdir(parents=True)
    home.mkdir()
    duration = f"{SLEEP_S}.{token}{n:02d}"
    async with ProviderServer() as server:
        write_provider_settings(
            home, server.base_url, f"[shell.sandbox]\nenabled = {str(sandbox).lower()}\n"
        )
        call = ScriptedToolCall("Bash", {"command": _command(duration), "timeout": 60})
        server.add(Reply(tool_calls=(call,)), Reply(text=("done",)))
        env = {**os.environ, "ZENGINE_HOME": str(home)}
        child = await asyncio.create_subprocess_exec(
            ZENGINE, "run", "--yes", "go", cwd=project, env=env,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        problem = ""
        deadline = time.monotonic() + 90  # the CLI starts in ~1.5 s on an idle machine
        while not (project / "started").exists():
            if child.returncode is not None or time.monotonic() > deadline:
                problem = f"round {n}: the command never started (rc {child.returncode})"
                break
            await asyncio.sleep(0.05)
        started = time.monotonic()
        await asyncio.sleep(0.2)  # the background sleepers are forked by now
        child.send_signal(signal.SIGKILL)
        await child.wait()
        if time.monotonic() - started > SLEEP_S - 0.5:
            problem = STALLED  # the machine stalled: the kill may have come too late
        # past the sleeps: whatever was going to happen has happened
        await asyncio.sleep(max(0.0, started + float(duration) + 0.7 - time.monotonic()))
    sides = len(list(project.glob("side-*")))
    if sides:
        print(f"round {n}: side effects {sorted(p.name for p in project.glob('side-*'))}")
    orphans = running_processes(duration)
    for pid in orphans:  # do not leave them behind for the rest of the suite
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    if problem and problem != STALLED:
        assert child.stderr is not None
        problem += ": " + (await child.stderr.read()).decode(errors="replace")[-800:]
    return sides, len(orphans), problem


async def _kill_rounds(base: Path, *, sandbox: bool) -> tuple[int, int]:
    token = f"{secrets.randbelow(10**6):06d}"
    limit = asyncio.Semaphore(AT_ONCE)

    async def one(n: int) -> tuple[int, int, str]:
        async with limit:
            for attempt in range(3):  # a round the machine stalled in is run again
                found = await _round(base / f"{n}-{attempt}", n, token, sandbox=sandbox)
                if found[2] != STALLED:
                    break
            return found

    results = await asyncio.gather(*(one(n) for n in range(ROUNDS)))
    problems = [p for _, _, p in results if p]
    assert not problems, problems
    rounds_with_sides = sum(1 for s, _, _ in results if s)
    orphans = sum(o for _, o, _ in results)
    return rounds_with_sides, orphans


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", [False, True], ids=["unsandboxed", "sandboxed"])
async def test_sigkill_of_zengine_run_during_bash_leaves_nothing_running(
    tmp_path: Path, sandbox: bool
) -> None:
    """Attack (fault): SIGKILL ``zengine run`` while its Bash command sleeps before a side
    effect; the command (its own session, its background jobs, a setsid grandchild) lives on
    and performs the side effect the log records as interrupted."""
    if sandbox:
        require_component("bwrap")
    sides, orphans = await _kill_rounds(tmp_path, sandbox=sandbox)
    print(f"\nkill-during-Bash ({'sandboxed' if sandbox else 'unsandboxed'}): {ROUNDS} kills, "
          f"{sides} rounds with side effects, {orphans} orphaned processes")  # fmt: skip
    assert (sides, orphans) == (0, 0)


async def test_sigterm_of_zengine_run_interrupts_the_turn(tmp_path: Path) -> None:
    """Fault: ``kill`` (SIGTERM) or a closed terminal (SIGHUP) ended ``zengine run`` at once,
    its command carried on and the turn was left open; now the turn ends as interrupted."""
    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    duration = f"{SLEEP_S}.{secrets.randbelow(10**6):06d}"
    async with configured_provider(home) as server:
        call = ScriptedToolCall("Bash", {"command": _command(duration), "timeout": 60})
        server.add(Reply(tool_calls=(call,)), Reply(text=("done",)))
        child = await asyncio.create_subprocess_exec(
            ZENGINE, "run", "--yes", "go", cwd=project,
            env={**os.environ, "ZENGINE_HOME": str(home)},
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        deadline = time.monotonic() + 90
        while not (project / "started").exists():
            assert child.returncode is None, "zengine run ended before the command started"
            assert time.monotonic() < deadline, "the command never started"
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        child.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(child.communicate(), 30)
        await asyncio.sleep(float(duration) + 0.5)
    assert child.returncode == 130, err.decode(errors="replace")
    assert "· interrupted ·" in err.decode()
    assert sorted(p.name for p in project.glob("side-*")) == []
    assert running_processes(duration) == []
