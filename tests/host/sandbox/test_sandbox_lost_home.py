"""Another user's home that goes away while a sandboxed command starts (a hub's admin removing
a user): bubblewrap cannot cover a folder that is not there, and stopped the launch with
``Can't mkdir HOME: Read-only file system`` (seen in CI, where tests add and remove Unix users
on one worker while the other runs sandboxed commands). The launch now leaves out a home that is
gone by its last look, and a command that bubblewrap still could not start for that reason
(removed in the few milliseconds after: ``Can't mkdir``, or, when it was removed once covered,
``Can't remount readonly``, seen in CI too) is started once more: it never ran, so it runs once.

Real bubblewrap; the removal is made at the worst moment, after the launch's last look and
before bubblewrap starts, by removing the folder from inside ``build_bwrap_argv``.
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import replace
from pathlib import Path

import pytest

from zengine_jupyter.engine.tools._shells import ShellRunner
from zengine_jupyter.host import RunOptions, run
from zengine_jupyter.host.sandbox import (
    CommandOrigin,
    CommandPlan,
    SandboxBackend,
    SandboxOptions,
    _wrap,
    build_bwrap_argv,
    detect_backend,
    launch,
    lost_a_home,
    plan_shell,
    run_planned,
)
from zengine_jupyter.testing.components import require_component

COMMAND = "echo ran >> runs.txt; echo hello"


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    require_component("bwrap")
    _backend()


@functools.cache
def _backend() -> SandboxBackend:
    """Detected once, outside any running loop (the runner's planner is called in one)."""
    return asyncio.run(detect_backend())


def _plan(tmp_path: Path, home: Path, command: str = COMMAND) -> CommandPlan:
    """A plan of the real sandbox for ``command`` in ``proj``, covering ``home`` as another
    user's home (the password database's list is left as it is)."""
    for name in ("proj", "tmp", "me"):
        (tmp_path / name).mkdir(exist_ok=True)
    options = SandboxOptions(
        root=tmp_path / "proj", temp_dir=tmp_path / "tmp", home=tmp_path / "me", enabled=True
    )
    plan = plan_shell(options, _backend(), CommandOrigin.AGENT_BASH, command, options.root)
    assert plan.profile is not None, plan.notice
    return replace(plan, profile=replace(plan.profile, foreign=(*plan.profile.foreign, home)))


def _neighbour(tmp_path: Path) -> tuple[Path, CommandPlan]:
    """Another user's home (a folder of the test's) and a plan that covers it."""
    home = tmp_path / "neighbour"
    home.mkdir()
    return home, _plan(tmp_path, home)


@pytest.fixture
def removed_at_launch(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Folders to remove at the next launch, after its last look (once each)."""
    pending: list[Path] = []

    def build(*args: object, **kwargs: object) -> tuple[str, ...]:
        argv = build_bwrap_argv(*args, **kwargs)  # type: ignore[arg-type]
        while pending:
            pending.pop().rmdir()
        return argv

    monkeypatch.setattr(_wrap, "build_bwrap_argv", build)
    return pending


def test_bubblewraps_own_words_for_a_home_gone_at_launch(
    tmp_path: Path, removed_at_launch: list[Path]
) -> None:
    """What bubblewrap says is what ``lost_a_home`` reads: if its message changed, this fails."""
    home, plan = _neighbour(tmp_path)
    removed_at_launch.append(home)

    async def once() -> tuple[int, bytes, bytes]:
        with launch(plan) as spec:
            opts = RunOptions(cwd=spec.cwd, env=dict(spec.env), pass_fds=spec.pass_fds)
            done = await run(spec.argv, opts)
        return done.returncode, done.stdout, done.stderr

    code, out, err = asyncio.run(once())
    assert (code, out) == (1, b"")
    assert err.startswith(f"bwrap: Can't mkdir {home}: ".encode()), err
    assert lost_a_home(plan, code, err)
    assert not (tmp_path / "proj" / "runs.txt").exists()  # the command never ran


def test_a_launch_leaves_out_a_home_that_is_gone(tmp_path: Path) -> None:
    home, plan = _neighbour(tmp_path)
    home.rmdir()
    assert plan.profile is not None
    assert home not in plan.profile.refreshed().foreign
    with launch(plan) as spec:
        assert str(home) not in spec.argv
    done = asyncio.run(run_planned(plan))
    assert (done.returncode, done.stdout) == (0, b"hello\n")


def test_run_planned_starts_once_more_and_the_command_runs_once(
    tmp_path: Path, removed_at_launch: list[Path]
) -> None:
    home, plan = _neighbour(tmp_path)
    removed_at_launch.append(home)
    done = asyncio.run(run_planned(plan))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"hello\n", b"")
    assert (tmp_path / "proj" / "runs.txt").read_text() == "ran\n"


def test_bash_and_background_shells_start_once_more(
    tmp_path: Path, removed_at_launch: list[Path]
) -> None:
    """Through the tools' runner: the model sees the command's output only, and the artifact
    holds that alone (bubblewrap's line is dropped)."""
    homes = [tmp_path / "neighbour-1", tmp_path / "neighbour-2"]
    for home in homes:
        home.mkdir()

    def planner(command: str, origin: CommandOrigin, cwd: Path) -> CommandPlan:
        plan = _plan(tmp_path, homes[0], command)
        assert plan.profile is not None
        kept = tuple(h for h in (*plan.profile.foreign, homes[1]) if h.is_dir())
        return replace(plan, origin=origin, cwd=cwd, profile=replace(plan.profile, foreign=kept))

    async def go() -> None:
        runner = ShellRunner(tmp_path / "proj", tmp_path / "artifacts", planner=planner)
        removed_at_launch.append(homes[0])
        result = await runner.run(COMMAND, timeout_s=30)
        assert (result.exit_code, result.output) == (0, b"hello\n")
        assert result.artifact.read_bytes() == b"hello\n"
        removed_at_launch.append(homes[1])
        shell = runner.start(COMMAND)
        assert shell.task is not None
        assert await shell.task == 0
        assert runner.read(shell.id)[1] == b"hello\n"
        assert shell.artifact.read_bytes() == b"hello\n"
        await runner.aclose()

    asyncio.run(go())
    assert (tmp_path / "proj" / "runs.txt").read_text() == "ran\nran\n"


def test_only_bubblewraps_one_line_for_a_home_that_is_gone_counts(tmp_path: Path) -> None:
    """Attack: a command that prints bubblewrap's words to be run twice. It only counts when
    the home it names is one the sandbox covers, and that home is gone now: a command cannot
    remove another user's home (it sees it read-only and empty)."""
    home, plan = _neighbour(tmp_path)
    line = f"bwrap: Can't mkdir {home}: Read-only file system\n".encode()
    assert not lost_a_home(plan, 1, line)  # the home is still there
    home.rmdir()
    assert lost_a_home(plan, 1, line)
    assert not lost_a_home(plan, 0, line)
    assert not lost_a_home(plan, 1, line + b"and then some\n")
    assert not lost_a_home(plan, 1, line.replace(str(home).encode(), str(tmp_path).encode()))
    assert not lost_a_home(replace(plan, profile=None), 1, line)
    assert not lost_a_home(plan, 1, b"x" + line)
    # covered, then removed outside: the cover is detached and bubblewrap's next step fails
    remount = f"bwrap: Can't remount readonly on /newroot{home}: realpath(destination): x\n"
    assert lost_a_home(plan, 1, remount.encode())
    assert lost_a_home(plan, 1, f"bwrap: Can't bind mount {home}/shared: gone\n".encode())
    assert not lost_a_home(plan, 1, f"bwrap: Can't mkdir {home}-other: x\n".encode())
    # a command that prints the line and exits 1 with the home still there runs once
    (tmp_path / "neighbour").mkdir()
    fake = f"echo ran >> runs.txt; printf '%s' {line.decode()!r} >&2; exit 1"
    done = asyncio.run(run_planned(_plan(tmp_path, home, fake)))
    assert done.returncode == 1
    assert (tmp_path / "proj" / "runs.txt").read_text() == "ran\n"
