"""Images a tool result carries (RunCell's plots) or a user's message attaches (an ACP prompt),
kept by reference in the chat's log.

The bytes go to ``artifacts/images/<sha256>.<ext>`` once (written in a thread); the log's
``ToolResultRecord.images`` holds the hash, size and file. Why not the bytes in the log: one
plot is 20-500 KB, base64 a third more, and every reader of the log (resume, the views'
replay, ``zengine sessions``) would carry it; by hash the log stays small, the same plot twice
is stored once, and the chat folder still holds everything a resumed chat sends again.
Requests are built synchronously, so :meth:`ImageStore.preload` reads a resumed chat's files
(in a thread) before the request is built, and :meth:`ImageStore.part` is a dict lookup.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
from typing import TYPE_CHECKING

from zengine_jupyter.config import private_dir, write_private
from zengine_jupyter.protocol import ImagePart, MessageRecord, RecordedImage, ToolResultRecord

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from zengine_jupyter.protocol import LogRecord

__all__ = ["ImageStore"]

_EXT = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


class ImageStore:
    """One chat's images: saved under its artifacts folder, cached by hash."""

    def __init__(self) -> None:
        self._parts: dict[str, ImagePart] = {}
        self._missing: set[str] = set()

    async def save(
        self, folder: Path, part: ImagePart, size: tuple[int | None, int | None] = (None, None)
    ) -> RecordedImage:
        data = base64.b64decode(part.data)
        digest = hashlib.sha256(data).hexdigest()
        name = f"images/{digest}.{_EXT[part.media_type]}"
        if digest not in self._parts:
            await asyncio.to_thread(_write, folder / name, data)
            self._parts[digest] = part
        return RecordedImage(media_type=part.media_type, sha256=digest, size=len(data),
                             file=name, width=size[0], height=size[1])  # fmt: skip

    async def preload(self, folder: Path, records: Iterable[LogRecord]) -> None:
        """Read the files of images the records name and the cache lacks (a resumed chat)."""
        wanted = {
            ref.sha256: ref
            for record in records
            if isinstance(record, ToolResultRecord | MessageRecord)
            for ref in record.images
            if ref.sha256 not in self._parts and ref.sha256 not in self._missing
        }
        for digest, ref in wanted.items():
            data = await asyncio.to_thread(_read, folder / ref.file)
            if data is None or hashlib.sha256(data).hexdigest() != digest:
                self._missing.add(digest)
                continue
            encoded = base64.b64encode(data).decode("ascii")
            self._parts[digest] = ImagePart(media_type=ref.media_type, data=encoded)

    def part(self, ref: RecordedImage) -> ImagePart | None:
        """The image to send, or ``None`` when its file is gone or was changed."""
        return self._parts.get(ref.sha256)


def _write(path: Path, data: bytes) -> None:
    private_dir(path.parent)
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        write_private(tmp, data)
        tmp.replace(path)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
