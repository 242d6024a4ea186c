"""Warm sandboxes: one bubblewrap per profile kept running, the agent's commands started inside.

Started alone, a sandboxed command pays bubblewrap's whole set-up each time: the namespaces, a
private ``/dev`` and ``/proc``, and one mount per writable area and protected path, each
re-reading the mount table (~9 of a sandboxed ``true``'s ~10 ms here, issue 25). A warm sandbox
pays that once: bubblewrap starts :mod:`_warm_helper` under the profile's own command line, and
each command is a message to it (argv, environment, folder, its three descriptors and a reply
socket). The helper's *keeper* gives each command what its own pid namespace gave it: what the
command leaves running is killed when it ends, and the engine's signals reach all of it.

A command is sent to a warm sandbox only when nothing it was built from has changed:

- the command's profile, re-checked just before (``refreshed``), is the one the sandbox was
  started with, or the same with the placeholders the sandbox made (they exist now);
- every path it mounts is the same file as when it started (device and inode): a folder
  removed and made again, or a ``.git/config`` rewritten by rename, would be the old one inside,
  or uncovered; a changed one retires the sandbox and a new one starts.

A sandbox with no command running stops after :data:`IDLE_S` (its placeholders then go, as a
single command's do); a retired one stops when its last command ends. Verification checks never
run warm: they share no processes with the agent's other commands, so nothing running beside a
check can touch its output or its exit status. When a warm sandbox cannot start or take a
command, the command starts alone as before (:func:`host.sandbox.launch`).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zengine_jupyter.host._process import child_environment
from zengine_jupyter.host.sandbox._bubblewrap import build_bwrap_argv
from zengine_jupyter.host.sandbox._placeholders import (
    after_releases,
    hold_placeholders,
    release_later,
    release_placeholders,
    settle_placeholders,
    write_seeds,
)
from zengine_jupyter.host.sandbox._seccomp import network_off_program, program_pipe
from zengine_jupyter.host.sandbox._warm_process import WarmProcess, send_command
from zengine_jupyter.protocol import SandboxError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from zengine_jupyter.host.sandbox._backend import SandboxBackend
    from zengine_jupyter.host.sandbox._placeholders import Hold
    from zengine_jupyter.host.sandbox._profile import SandboxProfile

__all__ = ["HELPER", "IDLE_S", "WarmProcess", "settle", "start_warm", "stop_idle"]

HELPER = Path(__file__).with_name("_warm_helper.py")
IDLE_S = 2.0
"""How long a warm sandbox with no command running waits for the next one before it stops:
long enough for the commands of one model reply, short enough that its placeholders go soon
after, as a single command's do."""
_READY_S = 10.0
_SEND_S = 5.0


@dataclass(eq=False)
class _Warm:
    """One running warm sandbox."""

    program: str
    profiles: tuple[SandboxProfile, SandboxProfile]
    """As started, and as re-checked once started (with the placeholders it made)."""
    marks: tuple[tuple[int, int] | None, ...]
    proc: subprocess.Popen[bytes]
    control: socket.socket
    hold: Hold
    running: int = 0
    retired: bool = False
    idle_since: float = 0.0


_live: list[_Warm] = []
_lock = threading.Lock()
_wake = threading.Condition(_lock)
_janitor: list[threading.Thread] = []
_at_exit: list[object] = []
_starting: dict[tuple[object, ...], asyncio.Future[None]] = {}
"""Starts under way, per program, project and event loop."""


def _mounted(profile: SandboxProfile) -> list[Path]:
    """Every host path bubblewrap mounts something on or from for ``profile``."""
    paths = [*profile.foreign, *profile.writable, *profile.pinned, *profile.hidden]
    paths += [*profile.masked, *(item.path for item in profile.protected)]
    paths += [item.path for item in profile.private]
    return paths


def _marks(profile: SandboxProfile) -> tuple[tuple[int, int] | None, ...]:
    """Which file each mounted path is now (None: absent)."""
    out: list[tuple[int, int] | None] = []
    for path in _mounted(profile):
        try:
            st = os.stat(path)  # noqa: PTH116 (~40 per command: no Path objects made)
        except OSError:
            out.append(None)
        else:
            out.append((st.st_dev, st.st_ino))
    return tuple(out)


def _find(program: str, profile: SandboxProfile) -> _Warm | None:
    """A live warm sandbox for ``profile``, counted as running one more command."""
    with _lock:
        found = next(
            (w for w in _live if not w.retired and w.program == program and profile in w.profiles),
            None,
        )
    if found is None:
        return None
    if found.proc.poll() is not None or _marks(found.profiles[1]) != found.marks:
        _retire(found)
        return None
    with _lock:
        if found.retired:
            return None
        found.running += 1
    return found


def _retire(warm: _Warm) -> None:
    with _lock:
        warm.retired = True
        idle = warm.running == 0
    if idle:
        _stop(warm)


def _done(warm: _Warm) -> None:
    """One of ``warm``'s commands has ended."""
    with _lock:
        warm.running -= 1
        if warm.running > 0:
            return
        if not warm.retired:
            warm.idle_since = time.monotonic()
            _wake.notify()
            if not _janitor:
                _janitor.append(
                    threading.Thread(target=_sweep_idle, name="zengine-warm", daemon=True)
                )
                _janitor[0].start()
            return
    _stop(warm)


def _sweep_idle() -> None:
    """The janitor thread: stops each warm sandbox that has been idle for :data:`IDLE_S`."""
    while True:
        with _lock:
            now = time.monotonic()
            idle = [w for w in _live if w.running == 0 and not w.retired]
            expired = [w for w in idle if now - w.idle_since >= IDLE_S]
            for warm in expired:
                warm.retired = True
            if not expired:
                _wake.wait(min((IDLE_S - (now - w.idle_since) for w in idle), default=None))
        for warm in expired:
            _stop(warm)  # its end on the releaser thread: settle_placeholders() waits for it


def _stop(warm: _Warm, *, wait: bool = False) -> None:
    """End ``warm``: the helper leaves when its control socket closes, and bubblewrap's pid
    namespace with it; its placeholders go once bubblewrap has."""
    with _lock:
        if warm in _live:
            _live.remove(warm)
    warm.control.close()

    def finish() -> None:
        try:
            warm.proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            warm.proc.kill()
            warm.proc.wait()
        release_placeholders(warm.hold)

    if wait:
        finish()
    else:  # on the releaser thread, so settle_placeholders() waits for it too
        after_releases(finish)


def _stop_all() -> None:
    """At exit: stop every warm sandbox, so its placeholders leave the user's project."""
    _stop_those(lambda warm: True)


def stop_idle() -> None:
    """Stop every warm sandbox that has no command running now (tests, shutdown, settling)."""
    _stop_those(lambda warm: warm.running == 0 and not warm.retired)


def _stop_those(pick: Callable[[_Warm], bool]) -> None:
    """Retire the warm sandboxes ``pick`` chooses (under the lock), then stop each."""
    with _lock:
        chosen = [warm for warm in _live if pick(warm)]
        for warm in chosen:
            warm.retired = True
    for warm in chosen:
        _stop(warm, wait=True)


def settle(timeout_s: float | None = 10.0) -> None:
    """Stop the idle warm sandboxes, then wait until every placeholder release handed over so
    far has run (tests, shutdown): what no command uses any more is gone."""
    stop_idle()
    settle_placeholders(timeout_s)


async def _start(profile: SandboxProfile, backend: SandboxBackend) -> _Warm:
    """Start a warm sandbox for ``profile`` (raises :class:`SandboxError` when it cannot)."""
    assert backend.program is not None
    held = hold_placeholders(profile.protected)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    fd: int | None = None
    try:
        write_seeds(held, profile.refreshed().protected)
        before = profile.refreshed()
        if not before.allow_network:
            fd = program_pipe(network_off_program(backend.machine))
        helper = [sys.executable, "-I", "-S", str(HELPER), str(theirs.fileno())]
        argv = build_bwrap_argv(
            before, helper, cwd=before.root, seccomp_fd=fd, program=backend.program
        )
        passed = (theirs.fileno(),) if fd is None else (theirs.fileno(), fd)
        # not asyncio's: the sandbox outlives the event loop that starts it (the kernel's, a
        # test's), and the engine only ever talks to it through sockets
        proc = subprocess.Popen(  # noqa: ASYNC220
            argv,
            cwd=before.root,
            env=child_environment(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            pass_fds=passed,
            start_new_session=True,
        )
    except BaseException:
        ours.close()
        release_later(held)
        raise
    finally:
        theirs.close()
        if fd is not None:
            os.close(fd)
    try:
        ours.setblocking(False)
        async with asyncio.timeout(_READY_S):
            ready = await asyncio.get_running_loop().sock_recv(ours, 16)
        if ready != b"R":
            raise SandboxError(f"the warm sandbox did not start: {_said(proc)}")
    except BaseException:
        ours.close()
        with contextlib.suppress(OSError):
            proc.kill()
        _finish_failed(proc, held)
        raise
    assert proc.stderr is not None
    proc.stderr.close()  # it said nothing; the commands get their own
    ours.settimeout(_SEND_S)
    after = profile.refreshed()
    warm = _Warm(backend.program, (before, after), _marks(after), proc, ours, held, running=1)
    with _lock:
        if not _at_exit:
            _at_exit.append(atexit.register(_stop_all))
        _live.append(warm)
    return warm


def _said(proc: subprocess.Popen[bytes]) -> str:
    assert proc.stderr is not None
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5.0)
    text = proc.stderr.read(4096).decode("utf-8", "replace").strip()
    return text or f"bubblewrap ended with status {proc.returncode}"


def _finish_failed(proc: subprocess.Popen[bytes], held: Hold) -> None:
    def finish() -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5.0)
        if proc.stderr is not None:
            proc.stderr.close()
        release_placeholders(held)

    after_releases(finish)


async def start_warm(
    profile: SandboxProfile,
    backend: SandboxBackend,
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: bool,
    stderr: bool | None,
) -> WarmProcess | None:
    """Start ``argv`` in a warm sandbox for ``profile``; None when none can take it (start it
    alone then). ``stdin``: piped (else ``/dev/null``); ``stderr``: piped apart (True), merged
    into stdout (None) or discarded (False)."""
    assert backend.program is not None
    current = profile.refreshed()
    warm = await _warm_for(backend, current)
    if warm is None:
        return None
    try:
        return await send_command(
            warm.control, argv, cwd=cwd, env=env, stdin=stdin, stderr=stderr,
            on_end=lambda: _done(warm),
        )  # fmt: skip
    except OSError:  # the helper is gone or the message too large: start it alone
        _retire(warm)
        _done(warm)
        return None


async def _warm_for(backend: SandboxBackend, profile: SandboxProfile) -> _Warm | None:
    """A warm sandbox for ``profile``, counted as running one more command: a live one, else
    one started now (commands asking at the same time wait for the same start); None when it
    cannot start."""
    assert backend.program is not None
    loop = asyncio.get_running_loop()
    key = (backend.program, profile.root, loop)  # not the profile: a start may change it
    while True:
        warm = _find(backend.program, profile)
        if warm is not None:
            return warm
        starting = _starting.get(key)
        if starting is None:
            break
        try:
            await asyncio.shield(starting)
        except (SandboxError, OSError, TimeoutError):
            return None
        profile = profile.refreshed()  # as the start left it (a seed it wrote, say)
    started: asyncio.Future[None] = loop.create_future()
    _starting[key] = started
    try:
        warm = await _start(profile, backend)
    except (SandboxError, OSError, TimeoutError) as exc:
        started.set_exception(exc)
        started.exception()  # retrieved: nobody need be waiting
        return None
    except BaseException:
        started.cancel()
        raise
    finally:
        del _starting[key]
    started.set_result(None)
    return warm
