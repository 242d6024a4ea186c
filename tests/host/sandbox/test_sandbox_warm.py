"""The warm sandbox (``host.sandbox._warm``): the agent's commands run in one bubblewrap per
profile, each as if started alone (its own exit status, output, folder and nothing left running
after it), and a sandbox is only reused while everything it mounted is the same."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.engine.tools._shells import ShellRunner
from zengine_jupyter.host import RunOptions
from zengine_jupyter.host.sandbox import (
    CommandOrigin,
    CommandPlan,
    SandboxBackend,
    _warm,
    detect_backend,
    open_planned,
    plan_shell,
    run_planned,
    settle_placeholders,
)
from zengine_jupyter.protocol import ProcessTimeoutError
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.sandbox import SandboxLayout, make_sandbox_layout
from zengine_jupyter.testing.sandbox import run_in_layout as _run

if TYPE_CHECKING:
    from pathlib import Path


RUN_WITH_UNIX_USERS = True
"""Not beside tests/security/test_sandbox_other_homes.py on the other worker (tests/conftest.py):
its users' homes change every profile, which retires the sandbox these tests watch."""


@pytest.fixture
async def layout(tmp_path: Path) -> SandboxLayout:
    require_component("bwrap")
    require_component("git")
    return await make_sandbox_layout(tmp_path)


async def _backend() -> SandboxBackend:
    backend = await detect_backend()
    assert backend.available, backend.notice
    return backend


def _sandboxes(layout: SandboxLayout) -> list[_warm._Warm]:
    return [w for w in _warm._live if w.profiles[0].root == layout.project]


async def _processes(layout: SandboxLayout) -> str:
    """What runs in the warm sandbox beside the command asking (its own ``ps`` left out)."""
    done = await _run(layout, "ps -eo args | grep -v -e '^ps ' -e '^grep ' -e '^bash -c'")
    return done.text()


async def test_commands_share_one_sandbox_and_leave_nothing_running(
    layout: SandboxLayout,
) -> None:
    first = await _run(layout, "echo one")
    [warm] = _sandboxes(layout)
    leave = (
        "(sleep 0.5; echo late > late.txt) & "
        "setsid sh -c 'sleep 0.5; echo late > late-setsid.txt' & "
        "nohup sh -c '(sleep 0.5; echo late > late-double.txt) &' >/dev/null 2>&1; echo two"
    )
    second = await _run(layout, leave)
    assert (first.text(), second.text()) == ("one\n", "two\n")
    assert _sandboxes(layout) == [warm], "the second command ran in the same sandbox"
    listing = await _processes(layout)
    assert "sleep" not in listing, listing
    assert "_warm_helper.py" in listing, "the listing comes from inside the warm sandbox"
    await asyncio.sleep(1.0)
    late = sorted(p.name for p in layout.project.glob("late*"))
    assert late == [], "what a command leaves running dies with it"
    # the same script, kept alive two seconds, does write them: the kill above stopped them
    await _run(layout, leave.replace("echo two", "sleep 2"))
    assert sorted(p.name for p in layout.project.glob("late*")) == [
        "late-double.txt",
        "late-setsid.txt",
        "late.txt",
    ]


async def test_exit_status_stdin_and_stderr_are_the_commands_own(layout: SandboxLayout) -> None:
    done = await _run(layout, "echo out; echo err >&2; exit 3")
    assert (done.returncode, done.stdout, done.stderr) == (3, b"out\n", b"err\n")
    killed = await _run(layout, "kill -9 $$")
    assert killed.returncode == -9, "killed by a signal reads as asyncio says it"
    fed = await _run(layout, "tr a-z A-Z", stdin=b"from the engine\n")
    assert fed.stdout == b"FROM THE ENGINE\n"
    where = await _run(layout, "pwd; echo $TMPDIR; ls /proc/self/fd | wc -l")
    lines = where.text().splitlines()
    assert lines[:2] == [str(layout.project), str(layout.temp)]
    assert int(lines[2]) <= 4, "0, 1, 2 and ls's own: nothing of the helper's is inherited"
    assert _sandboxes(layout)


async def test_a_missing_folder_is_named(layout: SandboxLayout) -> None:
    plan = plan_shell(
        layout.options(), await _backend(), CommandOrigin.AGENT_BASH, "pwd", layout.project / "gone"
    )
    done = await run_planned(plan, RunOptions(env=layout.env()))
    assert done.returncode == 127
    assert str(layout.project / "gone") in done.stderr.decode()


async def test_concurrent_commands_each_get_their_own_output(layout: SandboxLayout) -> None:
    runs = await asyncio.gather(*(_run(layout, f"sleep 0.3; echo {n}") for n in range(4)))
    assert [r.text() for r in runs] == [f"{n}\n" for n in range(4)]
    assert len(_sandboxes(layout)) == 1


async def test_a_deadline_stops_the_command_and_all_it_started(layout: SandboxLayout) -> None:
    with pytest.raises(ProcessTimeoutError, match=r"still running after 0\.5 s"):
        await _run(layout, "sleep 31 & setsid sleep 32 & sleep 33", timeout_s=0.5)
    listing = await _processes(layout)
    assert "sleep" not in listing, listing


async def test_leaving_a_streamed_command_early_stops_it(layout: SandboxLayout) -> None:
    plan = plan_shell(
        layout.options(), await _backend(), CommandOrigin.BACKGROUND_SHELL, "yes", layout.project
    )
    async with open_planned(plan, RunOptions(env=layout.env()), merge_stderr=True) as proc:
        assert isinstance(proc, _warm.WarmProcess)
        assert proc.stdout is not None
        assert (await proc.stdout.read(10)).startswith(b"y\n")
    assert proc.returncode is not None
    listing = await _processes(layout)
    assert "yes" not in listing.split(), listing


async def test_a_file_replaced_outside_is_seen_at_once(layout: SandboxLayout) -> None:
    """git rewrites ``.git/config`` by rename: the sandbox bound the old file, so it is not
    reused once that file (or any it mounts) is another one."""
    config = layout.project / ".git" / "config"
    before = await _run(layout, "cat .git/config")
    [old] = _sandboxes(layout)
    fresh = layout.project / ".git" / "config.new"
    fresh.write_text(config.read_text() + "[user]\n\tname = changed outside\n")
    fresh.replace(config)
    after = await _run(layout, "cat .git/config")
    assert "changed outside" not in before.text()
    assert "changed outside" in after.text()
    assert old not in _sandboxes(layout), "the old sandbox was retired"
    assert old.proc.wait(timeout=10) is not None, "and stopped"


async def test_a_placeholder_removed_outside_does_not_open_its_path(
    layout: SandboxLayout,
) -> None:
    """Removing a placeholder folder detaches the sandbox's cover over it; the next command
    must not find the path open."""
    mcp = layout.project / ".mcp.json"
    await _run(layout, "true")
    assert mcp.is_dir(), "the warm sandbox's placeholder"
    mcp.rmdir()
    done = await _run(layout, "echo '{}' > .mcp.json; echo $?")
    assert done.text().strip() != "0"
    assert not mcp.is_file()


async def test_an_idle_sandbox_stops_and_its_placeholders_go(
    layout: SandboxLayout, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_warm, "IDLE_S", 0.3)
    await _run(layout, "true")
    [warm] = _sandboxes(layout)
    assert (layout.project / ".mcp.json").is_dir()
    deadline = time.monotonic() + 20
    while _sandboxes(layout) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert _sandboxes(layout) == []
    assert warm.proc.wait(timeout=10) is not None
    settle_placeholders()
    assert not (layout.project / ".mcp.json").exists()
    assert not (layout.project / ".claude").exists()


async def test_settling_stops_idle_sandboxes(layout: SandboxLayout) -> None:
    await _run(layout, "true")
    [warm] = _sandboxes(layout)
    settle_placeholders()
    assert _sandboxes(layout) == []
    assert warm.proc.poll() is not None
    assert not (layout.project / ".mcp.json").exists()


async def test_a_check_starts_alone(layout: SandboxLayout) -> None:
    settle_placeholders()
    done = await _run(layout, "ps -eo args", CommandOrigin.CHECK)
    assert "_warm_helper.py" not in done.text()
    assert _sandboxes(layout) == []


async def test_the_check_runner_says_it_runs_a_check(tmp_path: Path) -> None:
    from zengine_jupyter.engine.verify._runner import ShellCheckRunner
    from zengine_jupyter.protocol import CheckSpec
    from zengine_jupyter.verify import CheckInvocation

    asked: list[CommandOrigin] = []

    def planner(command: str, origin: CommandOrigin, cwd: Path) -> CommandPlan:
        asked.append(origin)
        return CommandPlan(("bash", "-c", command), cwd, origin)  # unconfined here

    shells = ShellRunner(tmp_path, tmp_path / "artifacts", planner=planner)
    await shells.run("true", 30)
    spec = CheckSpec(id="custom:true", kind="test", command=["true"])
    output = await ShellCheckRunner(shells).run_check(
        CheckInvocation(spec, ("true",), tmp_path, 30.0)
    )
    assert output.exit_code == 0
    assert asked == [CommandOrigin.AGENT_BASH, CommandOrigin.CHECK]


async def test_without_a_helper_the_command_starts_alone(
    layout: SandboxLayout, monkeypatch: pytest.MonkeyPatch
) -> None:
    settle_placeholders()
    monkeypatch.setattr(_warm, "HELPER", layout.base / "no-such-helper.py")
    done = await _run(layout, "touch .git/hooks/x; echo $?; ps -eo args")
    lines = done.text().splitlines()
    assert lines[0] != "0", "still sandboxed"
    assert not (layout.project / ".git" / "hooks" / "x").exists()
    assert _sandboxes(layout) == []
    assert "_warm_helper.py" not in done.text()
