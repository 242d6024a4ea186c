"""The child guard: run one command so that it, and everything it starts, ends with the engine.

Started by ``host._process`` for ``RunOptions(tied=True)`` as
``python -I -S _childguard.py ENGINE_PID -- ARGV...`` (a plain script: it imports nothing from
zengine, so it starts in a few milliseconds). A sandboxed command does not need it: bubblewrap's
``--die-with-parent`` and its own pid namespace give the same guarantees.

What it guarantees, like a pid namespace would:

- the engine dies (even SIGKILL) -> every process the command started is killed at once
  (Linux: ``PR_SET_PDEATHSIG``; everywhere: the parent is also polled every 0.25 s);
- the command ends -> whatever it left running (``cmd &``, ``setsid``, ``nohup``) is killed;
- SIGTERM / SIGINT / SIGHUP (the engine stopping it) -> forwarded, then SIGKILL after 1 s.

The guard is a child subreaper (Linux), so a grandchild whose parent exited is re-parented to
it rather than to init, and a walk of ``/proc`` finds every descendant, even one that left the
process group with ``setsid``. Elsewhere only the command's process group is reached. Its exit
status is the command's (a command killed by signal N makes the guard die of signal N).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_LOST = signal.SIGUSR2
"""What the kernel sends the guard when the engine's thread that started it dies."""
_TICK_S = 0.25
_GRACE_S = 1.0
_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class _State:
    engine = 0
    child = 0
    stop_at: float | None = None
    sweeping = False
    lost = False


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (ImportError, OSError, AttributeError):
        return False


def _descendants() -> list[int]:
    """Every live process below the guard (Linux: from ``/proc``); [] elsewhere.

    Zombies are walked through but not returned: a process read before its parent died
    still names that parent, which may be a zombie by the time the parent is read.
    """
    children: dict[int, list[tuple[int, bool]]] = {}
    try:
        entries = os.listdir("/proc")  # noqa: PTH208 (no pathlib: the guard starts fast)
    except OSError:
        return []
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:  # noqa: PTH123
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append((int(name), fields[0] != b"Z"))
    found: list[int] = []
    todo = [os.getpid()]
    seen = set(todo)
    while todo:
        for pid, live in children.get(todo.pop(), []):
            if pid in seen:
                continue
            seen.add(pid)
            todo.append(pid)
            if live:
                found.append(pid)
    return found


def _signal_all(sig: int) -> int:
    """Send ``sig`` to the command's group and every descendant; how many were live."""
    if _State.child:
        with contextlib.suppress(OSError):
            os.killpg(_State.child, sig)
    live = _descendants()
    for pid in live:
        with contextlib.suppress(OSError):
            if sig != signal.SIGKILL and _State.child and os.getpgid(pid) == _State.child:
                continue  # the group has it already: a graceful signal is sent once
            os.kill(pid, sig)
    return len(live)


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _sweep() -> None:
    """SIGKILL everything below the guard until nothing is left (a fork may race the kill)."""
    if _State.sweeping:
        return
    _State.sweeping = True
    try:
        for _ in range(1000):
            left = _signal_all(signal.SIGKILL)
            _reap()
            if left == 0:
                break
            time.sleep(0.005)
    finally:
        _State.sweeping = False
    if _State.lost:
        os._exit(137)


def _lost(*_: object) -> None:
    """The engine is gone: kill everything, then go. Inside a sweep (a signal arriving while
    one runs) it only marks the loss: the sweep finishes, and the guard leaves after it."""
    _State.lost = True
    if _State.sweeping:
        return
    _sweep()
    os._exit(137)


def _tick(*_: object) -> None:
    if os.getppid() != _State.engine:
        _lost()
    elif _State.stop_at is not None and time.monotonic() >= _State.stop_at:
        _sweep()


def _forward(sig: int, _frame: object) -> None:
    _signal_all(sig)
    if _State.stop_at is None:
        _State.stop_at = time.monotonic() + _GRACE_S


def _exec(command: list[str]) -> None:
    """In the forked child: its own process group, default signals, then the command."""
    try:
        os.setpgid(0, 0)
        for sig in (*_FORWARDED, _LOST, signal.SIGALRM, signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        os.execvp(command[0], command)
    except OSError as exc:
        os.write(2, f"zengine: cannot run {command[0]!r}: {exc.strerror or exc}\n".encode())
    os._exit(127)


def _wait_for(child: int) -> int:
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return 0
        if pid == child:
            return status


def _mirror(status: int) -> int:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        with contextlib.suppress(OSError, ValueError):
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        return 128 + sig
    return os.waitstatus_to_exitcode(status)


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        os.write(2, b"usage: _childguard.py ENGINE_PID -- COMMAND...\n")
        return 2
    _State.engine = int(argv[1])
    signal.signal(_LOST, _lost)
    for sig in _FORWARDED:
        signal.signal(sig, _forward)
    signal.signal(signal.SIGALRM, _tick)
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    _prctl(_PR_SET_PDEATHSIG, _LOST)
    if os.getppid() != _State.engine:  # the engine died before the guard was set up
        return 137
    child = os.fork()
    if child == 0:
        _exec(argv[3:])
    _State.child = child
    with contextlib.suppress(OSError):  # the child did it first (or has exec'd: then it did)
        os.setpgid(child, child)
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the engine's pipes stay open only as long as the command's
        os.dup2(quiet, fd)
    signal.setitimer(signal.ITIMER_REAL, _TICK_S, _TICK_S)
    status = _wait_for(child)
    signal.setitimer(signal.ITIMER_REAL, 0)
    _sweep()
    return _mirror(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
