"""Content-Length framing (the LSP base protocol) over asyncio byte streams.

A frame is header lines (``Name: value``, ending in CRLF; a bare LF is accepted), a blank
line, then exactly ``Content-Length`` bytes of UTF-8 JSON. Header names are matched without
regard to case and headers other than Content-Length (``Content-Type``, which pylsp sends)
are ignored.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from zengine_jupyter.protocol import JsonRpcClosedError, JsonRpcFramingError

__all__ = ["MAX_FRAME_BYTES", "MAX_HEADER_BYTES", "encode_frame", "read_frame"]

MAX_FRAME_BYTES = 256 * 1024 * 1024
"""A larger Content-Length is taken as a broken peer, not allocated."""
MAX_HEADER_BYTES = 8 * 1024
"""All header lines of one frame together."""


def encode_frame(payload: Any) -> bytes:
    """One frame holding ``payload`` as compact JSON."""
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return b"Content-Length: " + str(len(body)).encode("ascii") + b"\r\n\r\n" + body


async def read_frame(reader: asyncio.StreamReader, *, peer: str = "peer") -> Any | None:
    """The next message's decoded JSON, or ``None`` at a clean end of stream.

    Raises :class:`JsonRpcFramingError` on a malformed header or body and
    :class:`JsonRpcClosedError` when the stream ends inside a frame.
    """
    length: int | None = None
    header_bytes = 0
    first = True
    while True:
        try:
            line = await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            if first and not exc.partial.strip():
                return None
            raise JsonRpcClosedError(f"{peer} closed its output in the middle of a frame") from exc
        except (asyncio.LimitOverrunError, ValueError) as exc:
            raise JsonRpcFramingError(f"{peer} sent a header line that is too long") from exc
        header_bytes += len(line)
        if header_bytes > MAX_HEADER_BYTES:
            raise JsonRpcFramingError(f"{peer} sent more than {MAX_HEADER_BYTES} header bytes")
        text = line.rstrip(b"\r\n")
        if not text:
            if first:  # stray blank line between frames: tolerated
                continue
            break
        first = False
        name, sep, value = text.partition(b":")
        if not sep:
            raise JsonRpcFramingError(f"{peer} sent a malformed header line {text[:80]!r}")
        if name.strip().lower() == b"content-length":
            try:
                length = int(value.strip())
            except ValueError:
                length = -1
            if not 0 <= length <= MAX_FRAME_BYTES:
                raise JsonRpcFramingError(
                    f"{peer} sent an invalid Content-Length {value.strip()[:40]!r}"
                )
    if length is None:
        raise JsonRpcFramingError(f"{peer} sent a frame without a Content-Length header")
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError as exc:
        raise JsonRpcClosedError(f"{peer} closed its output in the middle of a frame") from exc
    try:
        return json.loads(body)
    except (UnicodeDecodeError, ValueError) as exc:
        raise JsonRpcFramingError(f"{peer} sent a frame whose body is not JSON: {exc}") from exc
