"""Read's numbered lines, streamed: memory stays a small multiple of what is shown.

A line is read at most ``LINE_BYTES`` (``MAX_LINE_CHARS`` * 4 + 4) at a time; the rest of a
longer line is skipped in 1 MiB chunks, only counted, so a file with one 600 MB line costs
about a megabyte to show its first 2,000 characters.
"""

from __future__ import annotations

from typing import BinaryIO

from zengine_jupyter.protocol import ToolError

__all__ = ["DEFAULT_LINES", "MAX_LINE_CHARS", "numbered_lines"]

MAX_LINE_CHARS = 2000
DEFAULT_LINES = 2000
LINE_BYTES = MAX_LINE_CHARS * 4 + 4
"""Bytes enough for MAX_LINE_CHARS characters of any UTF-8 (4 bytes each at most)."""
_SKIP_CHUNK = 1 << 20
_NOT_CONTINUATION = bytes(range(0x80)) + bytes(range(0xC0, 0x100))


def numbered_lines(handle: BinaryIO, shown: str, offset: int, limit: int) -> str:
    """Lines ``offset`` .. ``offset + limit - 1`` of ``handle``, ``cat -n`` style, each cut
    at MAX_LINE_CHARS characters, with a note when the file goes on."""
    out: list[str] = []
    total = 0
    more = False
    while True:
        raw = handle.readline(LINE_BYTES)
        if not raw:
            break
        total += 1
        if total >= offset + limit:
            more = True  # stop here: a huge file is never read to its end
            break
        rest = 0 if raw.endswith(b"\n") or len(raw) < LINE_BYTES else _skip_rest(handle)
        if total < offset:
            continue
        out.append(f"{total:>6}\t{_shown_line(raw, rest)}")
    if total == 0:
        return f"({shown} is empty)"
    if offset > total:
        raise ToolError(f"{shown} has {total} lines; offset {offset} is past the end")
    last = min(total, offset + limit - 1)
    if more:
        out.append(f"[lines {offset}-{last} shown; the file goes on: use offset={last + 1}]")
    elif offset > 1:
        out.append(f"[lines {offset}-{last} of {total}]")
    return "\n".join(out)


def _shown_line(raw: bytes, rest: int) -> str:
    """One line as text; ``rest``: characters of it past ``raw`` that were only counted."""
    line = raw.decode("utf-8", "replace").rstrip("\r\n")
    if rest:
        extra = _chars(raw) + rest - MAX_LINE_CHARS
        return line[:MAX_LINE_CHARS] + f" [... {extra} more chars]"
    if len(line) > MAX_LINE_CHARS:
        line = line[:MAX_LINE_CHARS] + f" [... {len(line) - MAX_LINE_CHARS} more chars]"
    return line


def _skip_rest(handle: BinaryIO) -> int:
    """Consume the rest of a long line; return how many characters it held (no newline)."""
    count = 0
    while True:
        chunk = handle.readline(_SKIP_CHUNK)
        if not chunk:
            return count
        if chunk.endswith(b"\n"):
            return count + _chars(chunk.rstrip(b"\r\n"))
        count += _chars(chunk)


def _chars(data: bytes) -> int:
    """Characters in UTF-8 ``data``: every byte that does not continue a character."""
    return len(data) - len(data.translate(None, _NOT_CONTINUATION))
