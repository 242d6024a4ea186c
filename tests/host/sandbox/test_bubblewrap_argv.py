"""The bubblewrap command line, asserted exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.host.sandbox import ProtectedPath, SandboxProfile, build_bwrap_argv
from zengine_jupyter.protocol import SandboxError

P = Path("/p")


def _profile(*, network: bool) -> SandboxProfile:
    return SandboxProfile(
        root=P,
        writable=(Path("/tmp"), P, Path("/h/.cache")),
        pinned=(P / ".git",),
        protected=(
            ProtectedPath(P / ".git/hooks", "dir", exists=True),
            ProtectedPath(P / ".mcp.json", "file", exists=False),
        ),
        allow_network=network,
        home=Path("/h"),
        temp_dir=Path("/tmp"),
    )


def test_network_off_argv() -> None:
    argv = build_bwrap_argv(_profile(network=False), ["bash", "-c", "make"], cwd=P, seccomp_fd=7)
    assert argv == (
        "bwrap",
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--ro-bind-try", "/proc/sys", "/proc/sys",
        "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
        "--ro-bind-try", "/proc/fs", "/proc/fs",
        "--bind", "/tmp", "/tmp",
        "--bind", "/p", "/p",
        "--bind", "/h/.cache", "/h/.cache",
        "--bind", "/p/.git", "/p/.git",
        "--ro-bind", "/p/.git/hooks", "/p/.git/hooks",
        "--tmpfs", "/p/.mcp.json", "--remount-ro", "/p/.mcp.json",
        "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session",
        "--cap-drop", "ALL",
        "--unshare-net", "--seccomp", "7",
        "--chdir", "/p",
        "--", "bash", "-c", "make",
    )  # fmt: skip


def test_network_on_keeps_the_network_and_needs_no_filter() -> None:
    argv = build_bwrap_argv(
        _profile(network=True), ["true"], cwd=P / "sub", seccomp_fd=None, program="/usr/bin/bwrap"
    )
    assert argv[0] == "/usr/bin/bwrap"
    assert "--unshare-net" not in argv
    assert "--seccomp" not in argv
    assert argv[-4:] == ("--chdir", "/p/sub", "--", "true")


def test_network_off_without_filter_fails_closed() -> None:
    with pytest.raises(SandboxError, match="seccomp"):
        build_bwrap_argv(_profile(network=False), ["true"], cwd=P, seccomp_fd=None)


def test_empty_command_is_refused() -> None:
    with pytest.raises(SandboxError):
        build_bwrap_argv(_profile(network=True), [], cwd=P, seccomp_fd=None)


def test_network_on_covers_container_sockets_with_dev_null() -> None:
    from dataclasses import replace

    profile = replace(_profile(network=True), masked=(Path("/run/docker.sock"),))
    argv = build_bwrap_argv(profile, ["true"], cwd=P, seccomp_fd=None)
    i = argv.index("/run/docker.sock")
    assert argv[i - 2 : i + 1] == ("--ro-bind", "/dev/null", "/run/docker.sock")
    assert argv.index("/run/docker.sock") > argv.index("/p/.git/hooks")


def test_hidden_folders_are_empty_read_only_tmpfs() -> None:
    from dataclasses import replace

    hidden = Path("/h/.local/share/jupyter/runtime")
    argv = build_bwrap_argv(
        replace(_profile(network=True), hidden=(hidden,)), ["true"], cwd=P, seccomp_fd=None
    )
    i = argv.index("--tmpfs", argv.index("/p/.mcp.json") + 1)
    assert argv[i : i + 4] == ("--tmpfs", str(hidden), "--remount-ro", str(hidden))
