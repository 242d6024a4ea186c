"""Server-sent events, decoded incrementally from the bytes of an HTTP body (WHATWG rules).

Lines end in LF, CRLF or CR; ``:`` lines are comments (OpenRouter's keep-alives); ``event``
and ``data`` fields accumulate until a blank line dispatches the event. ``id`` and ``retry``
are not needed by model streams and are ignored.
"""

from __future__ import annotations

import codecs
import json
from typing import TYPE_CHECKING, Any

from pydantic_core import from_json

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

__all__ = ["SSEDecoder", "aiter_sse", "event_json"]


def event_json(data: str) -> Any:
    """An event's JSON data. pydantic-core's parser (about twice as fast as ``json``) refuses a
    lone-surrogate escape (``"\\ud800"``), which is still valid JSON: ``json`` reads that
    event, and the engine shows the character escaped. ``ValueError`` if it is not JSON."""
    try:
        return from_json(data)
    except ValueError:
        return json.loads(data)


class SSEDecoder:
    """Feed body chunks; get back complete ``(event, data)`` pairs (event "" = unnamed)."""

    __slots__ = ("_data", "_decoder", "_event", "_pending")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""
        self._event = ""
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        text = self._decoder.decode(chunk)
        if self._pending:
            text = self._pending + text
        if "\r" in text:
            if text.endswith("\r"):  # may be the first half of CRLF
                self._pending = text
                return []
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        self._pending = lines.pop()
        out: list[tuple[str, str]] = []
        data = self._data
        for line in lines:
            if not line:
                if data:
                    out.append((self._event, "\n".join(data)))
                    data = []
                self._event = ""
            elif line.startswith("data:"):
                data.append(line[6:] if line.startswith("data: ") else line[5:])
            elif line.startswith("event:"):
                self._event = line[7:] if line.startswith("event: ") else line[6:]
            elif line == "data":
                data.append("")
        self._data = data
        return out

    def close(self) -> list[tuple[str, str]]:
        """End of body: a final event without its blank line is dropped (per the standard)."""
        self._pending = ""
        self._event, self._data = "", []
        return []


async def aiter_sse(chunks: AsyncIterator[bytes]) -> AsyncIterator[tuple[str, str]]:
    """``(event, data)`` pairs from an async iterator of body chunks."""
    decoder = SSEDecoder()
    async for chunk in chunks:
        for item in decoder.feed(chunk):
            yield item
    decoder.close()
