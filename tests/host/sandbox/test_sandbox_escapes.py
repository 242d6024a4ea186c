"""Acceptance 1: escape attempts against real bubblewrap. Each one must fail, and each test
checks how it failed (the error the command met) and that the host is unchanged.

The attempts are ``zengine_jupyter.testing.escapes.ATTEMPTS``; the closing note counts them:
``len(ATTEMPTS)`` attempts, 0 escapes.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from zengine_jupyter.host import RunOptions, run
from zengine_jupyter.host.sandbox import (
    CommandOrigin,
    detect_backend,
    plan_shell,
    run_planned,
    settle_placeholders,
)
from zengine_jupyter.testing import Listener
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.escapes import ATTEMPTS, LEAVES_THE_LAYOUT, Attempt, World
from zengine_jupyter.testing.sandbox import make_sandbox_layout

PY = sys.executable


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    require_component("bwrap")
    require_component("git")
    base = tmp_path_factory.mktemp("escape")
    layout = asyncio.run(make_sandbox_layout(base))
    with Listener.tcp() as tcp, Listener.unix(base / "outside.sock") as unix:
        etc = Path(f"/etc/zengine-escape-{os.getpid()}")
        core_pattern = Path("/proc/sys/kernel/core_pattern").read_text()
        yield World(layout, tcp, unix, base / "outside.sock", etc, core_pattern)


def _run(world: World, script: str, cwd: Path, *, network: bool = False) -> tuple[int, str]:
    async def go() -> tuple[int, str]:
        backend = await detect_backend()
        assert backend.available, backend.notice
        options = world.layout.options(allow_network=network)
        plan = plan_shell(options, backend, CommandOrigin.AGENT_BASH, script, cwd)
        assert plan.sandboxed
        done = await run_planned(plan, RunOptions(env=world.layout.env(), timeout_s=30))
        # the engine's own placeholders go on the releaser thread after the result: the host
        # is checked once they are gone, as a later command or the user would see it
        settle_placeholders()
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
    code_ = f"import socket; socket.create_connection(('127.0.0.1', {world.tcp.port}), 3)"
    script = f"{PY} -c {code_!r}"
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


def test_jupyter_connection_files_are_out_of_sight(world: World, tmp_path: Path) -> None:
    """With a kernel's key, a command could run code in the user's kernel over localhost."""
    from zengine_jupyter.host.sandbox import CommandPlan, derive_profile

    runtime = tmp_path / "jupyter-runtime"
    runtime.mkdir()
    (runtime / "kernel-1234.json").write_text('{"key": "not-a-real-key"}')
    backend = asyncio.run(detect_backend())
    for network in (False, True):
        profile = derive_profile(world.layout.options(allow_network=network), hidden=[runtime])
        assert profile.hidden == (runtime,)
        plan = CommandPlan(
            ("bash", "-c", f"ls -A {runtime}; cat {runtime}/kernel-1234.json"),
            world.layout.project,
            CommandOrigin.AGENT_BASH,
            profile=profile,
            backend=backend,
        )
        done = asyncio.run(run_planned(plan))
        assert done.returncode != 0
        assert done.stdout == b""
        assert b"No such file or directory" in done.stderr
