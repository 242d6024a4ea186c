"""Small network helpers for tests that run real local servers."""

from __future__ import annotations

import contextlib
import socket
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["free_port", "unresponsive_port"]


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago on ``host`` (loopback only)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def unresponsive_port() -> Iterator[int]:
    """A loopback port that accepts no more connections: a connect to it times out.

    A listening socket with a backlog of 0 whose accept queue is already full (one
    connection that is never accepted) makes the kernel drop further SYNs silently.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(0)
        port = int(server.getsockname()[1])
        fillers: list[socket.socket] = []
        try:
            for _ in range(2):
                filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                fillers.append(filler)
                filler.setblocking(False)
                with contextlib.suppress(BlockingIOError):
                    filler.connect(("127.0.0.1", port))
            yield port
        finally:
            for filler in fillers:
                filler.close()
