"""The warm sandbox's helper: runs inside bubblewrap and starts each command it is sent.

Started by ``host.sandbox._warm`` as ``python -I -S _warm_helper.py CONTROL_FD`` under the
profile's own bubblewrap command line (a plain script: it imports nothing from zengine). The
engine sends one message per command on the control socket (SOCK_SEQPACKET): JSON
``{"argv", "env", "cwd"}`` with four descriptors (stdin, stdout, stderr, and the command's own
reply socket). Each command gets a *keeper*, which is what bubblewrap's pid namespace is for a
command started alone:

- it is a child subreaper, so everything the command starts stays below it, even after
  ``setsid`` or a double fork;
- when the command ends, it kills everything the command left running, then reports the exit
  status (``X CODE``, negative for a signal, as asyncio reports it) and goes;
- it passes on the signals the engine sends (``S SIG``) to the command's group and all below
  it; when the engine's end of the reply socket closes (the engine stopped waiting or died),
  it kills everything and goes.

On the reply socket the keeper says ``K`` before the command starts (the kernel attaches the
keeper's credentials, so the engine learns its pid), then ``P PID`` (the command's pid in the
sandbox), then ``X CODE``.

A keeper is forked ahead of its command (one spare waits for the next message), so the fork is
off the command's path. Neither the helper nor a keeper can be traced or read through ``/proc``
by the commands, which run as the same user with every capability dropped
(``PR_SET_DUMPABLE`` 0). They can be signalled: a command that kills its keeper leaves its
processes to the helper, a subreaper as well, which kills every child that is not a keeper (and
waits for them to go before it starts the next command); a keeper stopped with SIGSTOP is
killed by the engine through a pidfd. When the engine closes the control socket, the helper
leaves; bubblewrap's pid namespace then ends whatever is still running.
"""

from __future__ import annotations

import array
import contextlib
import ctypes
import gc
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # not imported at run time: the helper starts fast
    from collections.abc import Callable
    from types import ModuleType

_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36
_FDS = 4
_MAX_MESSAGE = 1 << 22
_LIBC = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, value: int) -> None:
    if int(_LIBC.prctl(option, value, 0, 0, 0)) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def _guard() -> ModuleType:
    """``host/_childguard.py``, loaded by its path: the walk of ``/proc`` and the reaping the
    child guard does for a command started alone (a plain script too, stdlib only)."""
    import importlib.util

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # noqa: PTH100, PTH120
    path = os.path.join(here, "_childguard.py")  # noqa: PTH118
    spec = importlib.util.spec_from_file_location("_zengine_childguard", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_GUARD = _guard()
_descendants: Callable[[], list[int]] = _GUARD._descendants
"""Every live process below this one, from this namespace's ``/proc``."""
_reap: Callable[[], None] = _GUARD._reap


def _children() -> list[int] | None:
    """This process's children (None: cannot tell). A subreaper's: what its children started
    and left is re-parented to it, so no child means nothing at all below it."""
    pid = os.getpid()
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as handle:  # noqa: PTH123
            return [int(child) for child in handle.read().split()]
    except OSError:
        return None


def _signal_all(child: int, sig: int) -> int:
    """Send ``sig`` to the command's group (while ``child`` lives) and to all below the keeper;
    how many were live."""
    if child:
        with contextlib.suppress(OSError):
            os.killpg(child, sig)
    live = _descendants()
    for pid in live:
        with contextlib.suppress(OSError):
            os.kill(pid, sig)
    return len(live)


def _sweep() -> None:
    """SIGKILL everything below the keeper until nothing is left (a fork may race a kill)."""
    for _ in range(1000):
        if _children() == []:
            return
        _signal_all(0, signal.SIGKILL)
        _reap()
        time.sleep(0.001)


def _start(argv: list[str], env: dict[str, str], cwd: str, fds: list[int]) -> int:
    """Start the command: its own session, the three descriptors, default signals."""
    try:
        proc = subprocess.Popen(
            argv,
            stdin=fds[0],
            stdout=fds[1],
            stderr=fds[2],
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
    except OSError as exc:
        where = exc.filename if exc.filename is not None else argv[0]
        message = f"zengine: cannot run {argv[0]!r}: {exc.strerror or exc} ({where})\n"
        os.write(fds[2], message.encode())
        return 0
    proc.returncode = 0  # the keeper waits for it itself: Popen must not
    return proc.pid


def _keep(channel: socket.socket) -> None:
    """A keeper: wait for one command from the helper, run it, report (never returns)."""
    code = 255
    try:
        data, fds = _receive(channel)
        channel.close()
        if data is None:
            return
        request = json.loads(data)
        reply = socket.socket(fileno=fds[3])
        reply.send(b"K")  # before the command exists: the engine learns this keeper's pid
        argv = [str(a) for a in request["argv"]]
        env = {str(k): str(v) for k, v in dict(request["env"]).items()}
        child = _start(argv, env, str(request["cwd"]), fds)
        for fd in fds[:3]:
            os.close(fd)  # the engine sees end of output once the command's side is gone
        if not child:
            reply.send(b"X 127")
            code = 0
            return
        reply.send(f"P {child}".encode())
        watch = os.pidfd_open(child)
        status = None
        while status is None:
            ready, _, _ = select.select([watch, reply.fileno()], [], [])
            if reply.fileno() in ready:
                message = reply.recv(64)
                if not message:  # the engine let go: nothing of this command may stay
                    _signal_all(child, signal.SIGKILL)
                    os.waitpid(child, 0)
                    _sweep()
                    return
                if message.startswith(b"S "):
                    _signal_all(child, int(message[2:]))
            if watch in ready:
                status = os.waitpid(child, 0)[1]
        _sweep()  # the command is reaped: its pid (and group) may be anyone's now
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.waitstatus_to_exitcode(status)
        reply.send(f"X {code}".encode())
        code = 0
    finally:
        os._exit(code)


def _receive(sock: socket.socket) -> tuple[bytes | None, list[int]]:
    """One message and its descriptors; None at end of stream or for a malformed message."""
    while True:
        try:
            data, ancillary, _, _ = sock.recvmsg(_MAX_MESSAGE, socket.CMSG_SPACE(_FDS * 4))
            break
        except InterruptedError:
            continue
    fds = array.array("i")
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    if data and len(fds) == _FDS:
        return data, list(fds)
    for fd in fds:
        os.close(fd)
    return None, []


_KEEPERS: set[int] = set()
"""The helper's children that are keepers (the spare included); any other child of the helper
is what a keeper left when it was killed (the helper is a subreaper too)."""


def _on_child(*_: object) -> None:
    """SIGCHLD in the helper: reap keepers that ended; kill what a killed keeper left behind
    (a command can kill its own keeper, same user as it is: what it started must not stay)."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        _KEEPERS.discard(pid)
    for pid in _children() or []:
        if pid not in _KEEPERS:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)  # its own children come back to us in turn


def _clear_orphans() -> None:
    """Kill what killed keepers left, and wait until it is gone: the next command starts in a
    sandbox where nothing of an ended command still runs."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    try:
        for _ in range(1000):
            orphans = [pid for pid in _children() or [] if pid not in _KEEPERS]
            if not orphans:
                return
            for pid in orphans:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            for pid in orphans:  # its children come back to us: the next round takes them
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})


def _spare(control: socket.socket) -> socket.socket:
    """Fork the next keeper; the helper's end of the socket it waits on."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # not an orphan: a keeper
    try:
        pid = os.fork()
        if pid == 0:
            control.close()
            ours.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the helper's reaper would take ours
            signal.pthread_sigmask(signal.SIG_SETMASK, set())  # the command inherits the mask
            _prctl(_PR_SET_CHILD_SUBREAPER, 1)
            _keep(theirs)
        _KEEPERS.add(pid)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    theirs.close()
    return ours


def main(argv: list[str]) -> int:
    control = socket.socket(fileno=int(argv[1]))
    _prctl(_PR_SET_DUMPABLE, 0)  # inherited by every keeper; reset for the command by exec
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    gc.disable()  # short-lived forks touch fewer pages
    gc.freeze()
    signal.signal(signal.SIGCHLD, _on_child)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 2)  # the engine stops reading the helper's errors once it is ready
    os.close(quiet)
    spare = _spare(control)  # after: no keeper holds the pipe the engine read errors from
    control.send(b"R")
    while True:
        data, fds = _receive(control)
        if data is None:
            if not _more(control):
                return 0
            continue
        _clear_orphans()
        try:
            spare.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
        except OSError:  # the spare is gone: the command cannot start
            with contextlib.suppress(OSError):
                os.write(fds[3], b"X 255")
        for fd in fds:
            os.close(fd)
        spare.close()
        spare = _spare(control)


def _more(control: socket.socket) -> bool:
    """After an empty or malformed message: whether the engine is still there."""
    try:
        ready, _, _ = select.select([control], [], [], 0)
        return not ready or bool(control.recv(1, socket.MSG_PEEK))
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(main(sys.argv))
