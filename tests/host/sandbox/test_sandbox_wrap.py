"""Which commands are wrapped, detection and its notice (acceptance 3), and launch bookkeeping."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from zengine_jupyter.host.sandbox import (
    SANDBOXED_ORIGINS,
    CommandOrigin,
    DetectOptions,
    SandboxBackend,
    SandboxOptions,
    clear_backend_cache,
    detect_backend,
    launch,
    network_off_program,
    plan_command,
    plan_shell,
    run_planned,
    settle_placeholders,
)

AVAILABLE = SandboxBackend(name="bubblewrap", program="/usr/bin/bwrap", machine="x86_64")


def _options(tmp_path: Path, *, enabled: bool = True) -> SandboxOptions:
    (tmp_path / "proj").mkdir(exist_ok=True)
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return SandboxOptions(
        root=tmp_path / "proj", temp_dir=tmp_path / "tmp", home=tmp_path, enabled=enabled
    )


def _script(path: Path, body: str) -> str:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    clear_backend_cache()


def test_only_agent_commands_are_sandboxed(tmp_path: Path) -> None:
    opts = _options(tmp_path)
    assert {
        CommandOrigin.AGENT_BASH,
        CommandOrigin.BACKGROUND_SHELL,
        CommandOrigin.CHECK,
    } == SANDBOXED_ORIGINS
    for origin in CommandOrigin:
        plan = plan_shell(opts, AVAILABLE, origin, "make", opts.root)
        assert plan.sandboxed is (origin in SANDBOXED_ORIGINS)
        assert plan.notice is None
    for origin in (CommandOrigin.USER_BANG, CommandOrigin.HOOK):
        plan = plan_command(opts, AVAILABLE, origin, ["make", "x"], opts.root)
        with launch(plan) as spec:
            assert spec.argv == ("make", "x")
            assert spec.pass_fds == ()


def test_disabled_sandbox_wraps_nothing_and_says_nothing(tmp_path: Path) -> None:
    plan = plan_shell(
        _options(tmp_path, enabled=False), AVAILABLE, CommandOrigin.CHECK, "x", tmp_path
    )
    assert not plan.sandboxed
    assert plan.notice is None


def test_missing_bwrap_gives_a_notice_and_runs_unconfined(tmp_path: Path) -> None:
    backend = asyncio.run(
        detect_backend(DetectOptions(platform="linux", bwrap="/nonexistent/bwrap"))
    )
    assert not backend.available
    notice = backend.notice
    assert notice is not None
    assert notice.backend == "bubblewrap"
    assert "/nonexistent/bwrap is not installed" in notice.reason
    assert "apt-get install bubblewrap" in notice.fix
    assert notice.text() == (
        "Sandbox off: /nonexistent/bwrap is not installed. Commands run unconfined and keep "
        f"asking for approval. Fix: {notice.fix}"
    )
    opts = _options(tmp_path)
    plan = plan_shell(opts, backend, CommandOrigin.AGENT_BASH, "echo out > ../free.txt", opts.root)
    assert plan.unconfined_by_failure
    assert plan.notice == notice
    done = asyncio.run(run_planned(plan))
    assert done.ok
    assert (tmp_path / "free.txt").read_text() == "out\n"  # unconfined indeed


def test_no_detection_at_all_is_a_notice_too(tmp_path: Path) -> None:
    plan = plan_shell(_options(tmp_path), None, CommandOrigin.AGENT_BASH, "true", tmp_path)
    assert plan.notice is not None
    assert "detect" in plan.notice.reason


def test_a_sandbox_that_cannot_start_gives_its_error(tmp_path: Path) -> None:
    fake = _script(
        tmp_path / "bwrap",
        'echo "bwrap: setting up uid map: Permission denied" >&2; exit 1',
    )
    backend = asyncio.run(detect_backend(DetectOptions(platform="linux", bwrap=fake)))
    assert backend.notice is not None
    assert "setting up uid map: Permission denied" in backend.notice.reason
    assert "user namespaces" in backend.notice.fix


def test_other_platforms(tmp_path: Path) -> None:
    win = asyncio.run(detect_backend(DetectOptions(platform="win32")))
    assert win.notice is not None
    assert win.notice.backend is None
    assert "WSL2" in win.notice.fix
    mac = asyncio.run(
        detect_backend(DetectOptions(platform="darwin", sandbox_exec=str(tmp_path / "none")))
    )
    assert mac.notice is not None
    assert mac.notice.backend == "seatbelt"
    odd = asyncio.run(
        detect_backend(DetectOptions(platform="linux", machine="riscv64", bwrap="sh"))
    )
    assert odd.notice is not None
    assert "riscv64" in odd.notice.reason


def test_detection_runs_once_and_is_cached(tmp_path: Path) -> None:
    calls = tmp_path / "calls"
    fake = _script(tmp_path / "bwrap", f"echo run >> {calls}; exit 0")
    opts = DetectOptions(platform="linux", machine="x86_64", bwrap=fake)
    first = asyncio.run(detect_backend(opts))
    second = asyncio.run(detect_backend(opts))
    assert first is second
    assert first.available
    assert calls.read_text() == "run\n"
    clear_backend_cache()
    asyncio.run(detect_backend(opts))
    assert calls.read_text() == "run\nrun\n"


def test_launch_hands_over_the_filter_and_seeds_commondir_once(tmp_path: Path) -> None:
    opts = _options(tmp_path)
    (opts.root / ".git").mkdir()
    (opts.root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")  # a repository
    plan = plan_shell(opts, AVAILABLE, CommandOrigin.AGENT_BASH, "true", opts.root)
    commondir = opts.root / ".git" / "commondir"
    with launch(plan) as first:
        (fd,) = first.pass_fds
        assert os.read(fd, 4096) == network_off_program("x86_64")
        assert first.argv[first.argv.index("--seccomp") + 1] == str(fd)
        assert first.env == {"TMPDIR": str(opts.temp_dir.resolve())}
        assert commondir.read_bytes() == b".\n"
        assert ("--ro-bind", str(commondir), str(commondir)) == tuple(
            first.argv[first.argv.index(str(commondir)) - 1 :][:3]
        )
        with launch(plan):
            pass
        settle_placeholders()
        assert commondir.exists(), "another command still needs the placeholder"
    settle_placeholders()
    assert not commondir.exists()


def test_launch_keeps_a_real_commondir(tmp_path: Path) -> None:
    opts = _options(tmp_path)
    (opts.root / ".git").mkdir()
    (opts.root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")  # a repository
    (opts.root / ".git" / "commondir").write_text("../main/.git\n")
    plan = plan_shell(opts, AVAILABLE, CommandOrigin.AGENT_BASH, "true", opts.root)
    with launch(plan):
        pass
    assert (opts.root / ".git" / "commondir").read_text() == "../main/.git\n"


def test_seatbelt_launch(tmp_path: Path) -> None:
    opts = _options(tmp_path)
    seatbelt = SandboxBackend(name="seatbelt", program="/usr/bin/sandbox-exec", machine="arm64")
    plan = plan_command(opts, seatbelt, CommandOrigin.CHECK, ["pytest"], opts.root)
    with launch(plan) as spec:
        assert spec.argv[:2] == ("/usr/bin/sandbox-exec", "-p")
        assert spec.argv[-2:] == ("--", "pytest")
        assert spec.pass_fds == ()


def test_a_profile_that_cannot_hold_becomes_a_notice(tmp_path: Path) -> None:
    opts = _options(tmp_path)
    (opts.root / ".git").mkdir()
    (opts.root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")  # a repository
    (tmp_path / "hooks-elsewhere").mkdir()
    (opts.root / ".git" / "hooks").symlink_to(tmp_path / "hooks-elsewhere")
    plan = plan_shell(opts, AVAILABLE, CommandOrigin.AGENT_BASH, "true", opts.root)
    assert not plan.sandboxed
    assert plan.notice is not None
    assert "symbolic link" in plan.notice.reason
    assert "replace the link" in plan.notice.fix


def test_a_placeholder_another_process_relies_on_is_left_then_adopted(tmp_path: Path) -> None:
    from zengine_jupyter.host.sandbox._placeholders import (
        hold_placeholders,
        lock_folder,
        release_placeholders,
    )

    opts = _options(tmp_path)
    (opts.root / ".git").mkdir()
    (opts.root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")  # a repository
    plan = plan_shell(opts, AVAILABLE, CommandOrigin.AGENT_BASH, "true", opts.root)
    commondir = opts.root / ".git" / "commondir"
    with launch(plan):
        # another process starts a sandboxed command now: it takes its own shared locks
        other = hold_placeholders(plan.profile.protected if plan.profile else ())
    settle_placeholders()
    assert commondir.read_bytes() == b".\n", "removing it would unmount it under the other"
    assert any(lock_folder().iterdir())
    release_placeholders(other)  # the other command ends (it owned no placeholder)
    with launch(plan):
        pass
    settle_placeholders()
    assert not commondir.exists(), "the next launch adopts the left-over seed and removes it"


def test_a_command_started_while_another_mounts_git_shares_its_placeholder(
    tmp_path: Path,
) -> None:
    opts = _options(tmp_path)
    first = plan_shell(opts, AVAILABLE, CommandOrigin.BACKGROUND_SHELL, "sleep 1", opts.root)
    with launch(first):
        (opts.root / ".git").mkdir()  # what bubblewrap does on the host for its placeholder
        # planned now, the second command sees an empty .git: another sandbox's mount point,
        # not a repository to pin and seed (its seed would keep the folder from being removed)
        second = plan_shell(opts, AVAILABLE, CommandOrigin.AGENT_BASH, "true", opts.root)
        assert second.profile is not None
        assert second.profile.pinned == ()
        with launch(second):
            pass
        settle_placeholders()
        assert (opts.root / ".git").is_dir(), "the first command still relies on it"
    settle_placeholders()
    assert sorted(p.name for p in opts.root.iterdir()) == [], "no empty .git left behind"


def test_the_command_does_not_wait_for_its_placeholders_to_go(tmp_path: Path) -> None:
    """Removing a placeholder folder costs milliseconds (rmdir on ext4 with discard): it runs
    on the releaser thread after the command's result, and a launch in between adopts it."""
    import threading

    from zengine_jupyter.host.sandbox._placeholders import _releaser

    opts = _options(tmp_path)
    plan = plan_shell(opts, AVAILABLE, CommandOrigin.AGENT_BASH, "true", opts.root)
    gate = threading.Event()
    _releaser().submit(gate.wait, 10)  # the releaser is busy
    try:
        with launch(plan):
            (opts.root / ".mcp.json").mkdir()  # what bubblewrap does for its placeholder
        assert (opts.root / ".mcp.json").is_dir(), "the release waits for the releaser"
        with launch(plan) as spec:  # a launch before the release: it shares the placeholder,
            # which reads as absent (an empty folder of this process's) and is covered again
            assert ("--tmpfs", str(opts.root / ".mcp.json")) == spec.argv[
                spec.argv.index(str(opts.root / ".mcp.json")) - 1 :
            ][:2]
    finally:
        gate.set()
    settle_placeholders()
    assert sorted(p.name for p in opts.root.iterdir()) == [], "the last one out removed it"


def test_a_late_release_leaves_what_a_launch_of_this_process_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A release that runs after the next command took its locks (here with other lock files:
    ZENGINE_HOME changed in between) leaves the placeholder to it: removing it would fail the
    next command's mount, or unmount it under the command."""
    import threading

    from zengine_jupyter.host.sandbox._placeholders import (
        _releaser,
        hold_placeholders,
        release_placeholders,
        write_seeds,
    )

    opts = _options(tmp_path)
    plan = plan_shell(opts, AVAILABLE, CommandOrigin.AGENT_BASH, "true", opts.root)
    assert plan.profile is not None
    gate = threading.Event()
    _releaser().submit(gate.wait, 10)
    try:
        with launch(plan):
            (opts.root / ".mcp.json").mkdir()  # bubblewrap's placeholder
        monkeypatch.setenv("ZENGINE_HOME", str(tmp_path / "other-home"))
        held = hold_placeholders(plan.profile.protected)  # the next command, before it looks
    finally:
        gate.set()
    settle_placeholders()
    assert (opts.root / ".mcp.json").is_dir(), "removed under the next command"
    write_seeds(held, plan.profile.refreshed().protected)
    release_placeholders(held)
    assert not (opts.root / ".mcp.json").exists(), "the next command removed it at its end"


_KILLED_LAUNCH = """
import subprocess, sys
from pathlib import Path
from zengine_jupyter.host.sandbox import CommandOrigin, SandboxBackend, SandboxOptions, launch
from zengine_jupyter.host.sandbox import plan_shell
root, temp, home = (Path(a) for a in sys.argv[1:4])
opts = SandboxOptions(root=root, temp_dir=temp, home=home, enabled=True)
backend = SandboxBackend(name="bubblewrap", program="/usr/bin/bwrap", machine="x86_64")
plan = plan_shell(opts, backend, CommandOrigin.AGENT_BASH, "sleep 60", root)
with launch(plan) as spec:
    child = subprocess.Popen(spec.argv, cwd=spec.cwd, pass_fds=spec.pass_fds)
    child.wait()
"""


def test_folder_placeholders_a_killed_process_left_go_with_the_next_launch(
    tmp_path: Path,
) -> None:
    """A kernel killed during a sandboxed command cannot remove its placeholders: empty
    ``.mcp.json`` and ``.claude`` folders would stay in the user's project for good (another
    tool would then find a folder where it reads a file). The next launch removes them; an
    empty folder the user made at a protected path (``.z-engine``) stays."""
    import signal
    import subprocess
    import sys
    import time

    opts = _options(tmp_path)
    mcp_json, claude = opts.root / ".mcp.json", opts.root / ".claude"
    (opts.root / ".z-engine").mkdir()  # the user's own, empty for now
    argv = [sys.executable, "-c", _KILLED_LAUNCH, str(opts.root), str(opts.temp_dir), str(tmp_path)]
    killed = subprocess.Popen(argv)
    try:
        deadline = time.monotonic() + 30
        while not (mcp_json.is_dir() and claude.is_dir()):  # bubblewrap made its mount points
            assert killed.poll() is None, "the sandboxed command ended early"
            assert time.monotonic() < deadline, "bubblewrap never made its placeholders"
            time.sleep(0.02)
    finally:
        killed.send_signal(signal.SIGKILL)
        killed.wait()
    time.sleep(0.2)  # bubblewrap dies with its parent
    left = sorted(p.name for p in opts.root.iterdir())
    assert left == [".claude", ".git", ".mcp.json", ".z-engine"], "the killed process's"
    plan = plan_shell(opts, AVAILABLE, CommandOrigin.AGENT_BASH, "true", opts.root)
    with launch(plan):
        pass
    settle_placeholders()
    assert sorted(p.name for p in opts.root.iterdir()) == [".z-engine"]
