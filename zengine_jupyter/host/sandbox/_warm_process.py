"""A command running in a warm sandbox (``_warm``): the message that starts it, and the
process-like object the engine reads, waits for and stops.

The helper's keeper answers on the command's own reply socket (``_warm_helper``): ``K`` before
the command starts (the kernel attaches the keeper's pid, ``SO_PASSCRED``), ``P PID``, then
``X CODE``. The engine's signals go the other way as ``S SIG``; a keeper that no longer answers
(the command stopped it) is killed through a pidfd.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import json
import os
import signal
import socket
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path

__all__ = ["WarmProcess", "send_command"]


class WarmProcess:
    """A command running in a warm sandbox, shaped like ``asyncio.subprocess.Process`` for what
    the engine uses: ``stdin``, ``stdout``, ``stderr``, ``pid``, ``returncode``, ``wait()``,
    ``communicate()``, ``send_signal()``, ``terminate()``, ``kill()`` and :meth:`stop`."""

    def __init__(self, reply: socket.socket, on_end: Callable[[], None]) -> None:
        self._on_end: Callable[[], None] | None = on_end
        """Called once, when the command has ended (its sandbox counts one command less)."""
        self._reply = reply
        self.pid = 0
        """The command's pid inside the sandbox's own pid namespace."""
        self.returncode: int | None = None
        self.stdin: asyncio.StreamWriter | None = None
        self.stdout: asyncio.StreamReader | None = None
        self.stderr: asyncio.StreamReader | None = None
        self._waiting: asyncio.Future[int] | None = None
        self._keeper: int | None = None
        """A pidfd of the keeper (from the credentials of its first message)."""
        self._pipes: list[asyncio.BaseTransport] = []

    async def pipe_from(self, loop: asyncio.AbstractEventLoop, fd: int) -> asyncio.StreamReader:
        """A reader for the engine's end ``fd`` of one of the command's output pipes."""
        reader = asyncio.StreamReader(limit=1 << 16, loop=loop)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader, loop=loop), os.fdopen(fd, "rb", 0)
        )
        self._pipes.append(transport)
        return reader

    async def _read_status(self) -> int:
        code = -9  # the keeper went without a word: the command cannot have finished well
        try:
            while True:
                message, sender = await _receive(self._reply)
                if not message:
                    break
                if message == b"K" and sender and self._keeper is None:
                    # the keeper's pid here, sent before its command starts (so before the
                    # command can stop it), while it holds the socket: alive
                    with contextlib.suppress(OSError):
                        self._keeper = os.pidfd_open(sender)
                elif message.startswith(b"P "):
                    self.pid = int(message[2:])
                elif message.startswith(b"X "):
                    code = int(message[2:])
                    break
        finally:
            self.returncode = code
            self._release()
        return code

    def _release(self) -> None:
        on_end, self._on_end = self._on_end, None
        self._reply.close()
        if self._keeper is not None:
            os.close(self._keeper)
            self._keeper = None
        if on_end is not None:
            on_end()

    def watch(self) -> None:
        """Start reading the keeper's messages (its pid first, then the exit status)."""
        if self._waiting is None:
            self._waiting = asyncio.ensure_future(self._read_status())

    async def wait(self) -> int:
        if self.returncode is not None and self._waiting is None:
            return self.returncode
        self.watch()
        assert self._waiting is not None
        return await asyncio.shield(self._waiting)

    async def _ended_within(self, seconds: float) -> bool:
        try:
            async with asyncio.timeout(seconds):
                await self.wait()
        except TimeoutError:
            return False
        return True

    def send_signal(self, sig: int) -> None:
        if self.returncode is not None:
            return
        with contextlib.suppress(OSError):
            self._reply.send(f"S {int(sig)}".encode())

    def terminate(self) -> None:
        self.send_signal(15)

    def kill(self) -> None:
        self.send_signal(9)

    async def communicate(self, data: bytes | None = None) -> tuple[bytes, bytes]:
        if self.stdin is not None:
            with contextlib.suppress(ConnectionError):
                if data:
                    self.stdin.write(data)
                    await self.stdin.drain()
            self.stdin.close()
        out, err = await asyncio.gather(_all(self.stdout), _all(self.stderr))
        await self.wait()
        return out, err

    async def stop(self, grace_s: float) -> None:
        """SIGTERM to the command and all it started, SIGKILL after ``grace_s``; the keeper
        kills what is left when it goes. A keeper that does not answer (the command stopped
        it) is killed after another ``grace_s``, and the helper kills what it kept."""
        if self.returncode is None:
            self.terminate()
            if not await self._ended_within(grace_s):
                self.kill()
                if not await self._ended_within(grace_s):
                    if self._keeper is not None:
                        with contextlib.suppress(OSError):
                            signal.pidfd_send_signal(self._keeper, signal.SIGKILL)
                        await self.wait()
                    elif self._waiting is not None:
                        self._waiting.cancel()  # nothing more to learn: count it killed
                        with contextlib.suppress(asyncio.CancelledError):
                            await self._waiting
        if self.stdin is not None:
            self.stdin.close()
        for pipe in self._pipes:  # output nobody read
            pipe.close()


_UCRED = 12  # struct ucred: pid, uid, gid


async def _receive(sock: socket.socket) -> tuple[bytes, int | None]:
    """One message from the keeper, and the sender's pid in this process's pid namespace (the
    kernel attaches it with ``SO_PASSCRED``)."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            data, ancillary, _, _ = sock.recvmsg(64, socket.CMSG_SPACE(_UCRED))
        except BlockingIOError:
            await _readable(loop, sock)
            continue
        except ConnectionError:  # the keeper was killed with a message unread
            return b"", None
        sender = None
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                sender = int.from_bytes(payload[:4], sys.byteorder, signed=True) or None
        return data, sender


async def _readable(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> None:
    readable: asyncio.Future[None] = loop.create_future()

    def ready() -> None:
        if not readable.done():
            readable.set_result(None)

    loop.add_reader(sock.fileno(), ready)
    try:
        await readable
    finally:
        loop.remove_reader(sock.fileno())


async def _all(reader: asyncio.StreamReader | None) -> bytes:
    return b"" if reader is None else await reader.read()


async def send_command(
    control: socket.socket,
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: bool,
    stderr: bool | None,
    on_end: Callable[[], None],
) -> WarmProcess:
    """Send ``argv`` to a warm sandbox's helper on its ``control`` socket, with its pipes and
    reply socket; the running command. ``on_end`` runs once it has ended. Raises
    :class:`OSError` when the helper cannot take it (gone, or the message too large)."""
    loop = asyncio.get_running_loop()
    message = json.dumps({"argv": list(argv), "env": dict(env), "cwd": os.fspath(cwd)}).encode()
    theirs: list[int] = []
    ours: list[int] = []
    try:
        in_r, in_w = os.pipe() if stdin else (os.open(os.devnull, os.O_RDONLY), -1)
        theirs.append(in_r)
        ours.append(in_w)
        out_r, out_w = os.pipe()
        theirs.append(out_w)
        ours.append(out_r)
        if stderr is None:
            theirs.append(out_w)
        elif stderr:
            err_r, err_w = os.pipe()
            theirs.append(err_w)
            ours.append(err_r)
        else:
            theirs.append(os.open(os.devnull, os.O_WRONLY))
        mine, keeper = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        mine.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)  # the keeper's pid, here
        with keeper:
            fds = array.array("i", [*theirs, keeper.fileno()])
            control.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
    except BaseException:
        for fd in ours:
            if fd >= 0:
                os.close(fd)
        raise
    finally:
        for fd in dict.fromkeys(theirs):
            with contextlib.suppress(OSError):
                os.close(fd)
    mine.setblocking(False)
    proc = WarmProcess(mine, on_end)
    proc.watch()
    proc.stdout = await proc.pipe_from(loop, ours[1])
    if stderr:
        proc.stderr = await proc.pipe_from(loop, ours[2])
    if stdin:
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(ours[0], "wb", 0)
        )
        proc.stdin = asyncio.StreamWriter(transport, protocol, None, loop)
    return proc
