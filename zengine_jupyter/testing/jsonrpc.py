"""In-memory byte streams for JSON-RPC tests (no process, no socket)."""

from __future__ import annotations

import asyncio

__all__ = ["MemoryWriter", "memory_stream_pair"]


class MemoryWriter:
    """Writes into a :class:`asyncio.StreamReader`; closing it is the reader's EOF."""

    def __init__(self, target: asyncio.StreamReader) -> None:
        self._target = target
        self._closing = False

    def write(self, data: bytes) -> None:
        if self._closing:
            raise ConnectionResetError("write to a closed memory stream")
        self._target.feed_data(data)

    async def drain(self) -> None:
        await asyncio.sleep(0)

    def close(self) -> None:
        if not self._closing:
            self._closing = True
            self._target.feed_eof()

    def is_closing(self) -> bool:
        return self._closing


def memory_stream_pair() -> tuple[
    tuple[asyncio.StreamReader, MemoryWriter], tuple[asyncio.StreamReader, MemoryWriter]
]:
    """Two connected ends ``(reader, writer)``: what one end writes, the other reads."""
    a_in, b_in = asyncio.StreamReader(), asyncio.StreamReader()
    return (a_in, MemoryWriter(b_in)), (b_in, MemoryWriter(a_in))
