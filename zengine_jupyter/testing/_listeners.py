"""Real listening sockets that count who connects: a sandbox must not reach them."""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import TYPE_CHECKING, Self

if TYPE_CHECKING:
    from pathlib import Path
    from types import TracebackType

__all__ = ["Listener"]


class Listener:
    """A server socket (TCP on 127.0.0.1, or Unix at a path) accepting in a thread.

    ``accepted`` counts the connections that reached it. Use as a context manager.
    """

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._sock.settimeout(0.05)
        self._stop = threading.Event()
        self._count = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._serve, name="zengine-listener", daemon=True)
        self._thread.start()

    @classmethod
    def tcp(cls) -> Listener:
        return cls(socket.create_server(("127.0.0.1", 0)))

    @classmethod
    def unix(cls, path: Path) -> Listener:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(path))
            sock.listen()
        except BaseException:
            sock.close()
            raise
        return cls(sock)

    @property
    def address(self) -> tuple[str, int] | str:
        name = self._sock.getsockname()
        return name if isinstance(name, str) else (str(name[0]), int(name[1]))

    @property
    def port(self) -> int:
        address = self.address
        if isinstance(address, str):
            raise TypeError("a Unix socket has no port")
        return address[1]

    @property
    def accepted(self) -> int:
        with self._lock:
            return self._count

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            with self._lock:
                self._count += 1
            with contextlib.suppress(OSError):
                conn.sendall(b"hello\n")
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sock.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
