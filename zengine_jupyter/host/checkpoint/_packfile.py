"""Write blobs and trees into one git pack (version 2) and its index (``.idx`` version 2).

Git names and checks objects with a collision-detecting SHA-1 that costs several times the
plain SHA-1 OpenSSL computes; for the first snapshot of a big project (every file new) the
objects are hashed here with ``hashlib`` and deflated with ``zlib`` (level 1, as git's loose
objects), both outside the GIL. The formats are git's ``Documentation/gitformat-pack.txt``:

* pack: ``PACK``, version 2, object count; per object a type-and-size header (type 3, a blob;
  2, a tree) and the zlib stream of its content; the SHA-1 of everything before it.
* idx: ``\\377tOc``, version 2, a fan-out table of 256 counts, the sorted object ids, the CRC-32
  of each object's packed bytes, 31-bit offsets (or indices into a table of 64-bit offsets),
  the pack's checksum, then the SHA-1 of the idx itself.

The pack is written under a temporary name, synced, then renamed into ``objects/pack``
before its idx: git sees a pack only once its idx exists, so a crash leaves no half pack.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import struct
import zlib
from typing import TYPE_CHECKING

from zengine_jupyter.config import PRIVATE_FILE_MODE, open_private, private_dir

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["PackWriter", "blob_id", "object_id"]

_TYPES = {b"tree": 2, b"blob": 3}
_LEVEL = 1


def object_id(kind: bytes, data: bytes) -> bytes:
    """The 20-byte object id git gives an object of ``kind`` (``b"blob"``, ``b"tree"``)."""
    digest = hashlib.sha1(b"%s %d\0" % (kind, len(data)), usedforsecurity=False)
    digest.update(data)
    return digest.digest()


def blob_id(data: bytes) -> bytes:
    """The 20-byte object id git gives a blob holding ``data``."""
    return object_id(b"blob", data)


def _object_header(kind: bytes, size: int) -> bytes:
    out = bytearray()
    byte = (_TYPES[kind] << 4) | (size & 0x0F)
    size >>= 4
    while size:
        out.append(byte | 0x80)
        byte = size & 0x7F
        size >>= 7
    out.append(byte)
    return bytes(out)


class PackWriter:
    """Objects appended one by one to a new pack in ``pack_dir``; :meth:`finish` publishes it.

    Not thread-safe: one thread writes. Identical objects are stored once.
    """

    def __init__(self, pack_dir: Path) -> None:
        self.pack_dir = pack_dir
        private_dir(pack_dir)
        self._tmp = pack_dir / f"tmp_zengine_{secrets.token_hex(8)}"
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
        self._file = os.fdopen(os.open(self._tmp, flags, PRIVATE_FILE_MODE), "w+b")
        self._file.write(b"PACK" + struct.pack(">II", 2, 0))  # the count is set in finish
        self._offset = 12
        self._objects: dict[bytes, tuple[int, int]] = {}
        """object id -> (offset, crc32 of its packed bytes)"""

    def add(self, data: bytes, kind: bytes = b"blob") -> bytes:
        """Store ``data`` as an object of ``kind`` (once per content); its object id."""
        oid = object_id(kind, data)
        if oid in self._objects:
            return oid
        header = _object_header(kind, len(data))
        body = zlib.compress(data, _LEVEL)
        self._objects[oid] = (self._offset, zlib.crc32(body, zlib.crc32(header)))
        self._file.write(header)
        self._file.write(body)
        self._offset += len(header) + len(body)
        return oid

    def finish(self) -> Path | None:
        """Publish the pack and its idx (None when nothing was added: no pack)."""
        if not self._objects:
            self.abort()
            return None
        handle = self._file
        handle.seek(8)
        handle.write(struct.pack(">I", len(self._objects)))
        handle.flush()
        handle.seek(0)
        digest = hashlib.sha1(usedforsecurity=False)
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
        checksum = digest.digest()
        handle.write(checksum)
        handle.flush()
        os.fsync(handle.fileno())
        handle.close()
        name = f"pack-{checksum.hex()}"
        pack = self.pack_dir / f"{name}.pack"
        self._tmp.replace(pack)
        idx_tmp = self.pack_dir / f"tmp_zengine_{name}.idx"
        with open_private(idx_tmp) as idx:
            idx.write(self._idx(checksum))
            idx.flush()
            os.fsync(idx.fileno())
        idx_tmp.replace(self.pack_dir / f"{name}.idx")
        return pack

    def abort(self) -> None:
        """Drop the unfinished pack."""
        if not self._file.closed:
            self._file.close()
        self._tmp.unlink(missing_ok=True)

    def _idx(self, pack_checksum: bytes) -> bytes:
        oids = sorted(self._objects)
        fanout = [0] * 256
        for oid in oids:
            fanout[oid[0]] += 1
        running = 0
        for i in range(256):
            running += fanout[i]
            fanout[i] = running
        small: list[int] = []
        large: list[int] = []
        for oid in oids:
            offset = self._objects[oid][0]
            if offset < 0x80000000:
                small.append(offset)
            else:
                small.append(0x80000000 | len(large))
                large.append(offset)
        n = len(oids)
        body = b"".join(
            [
                b"\377tOc",
                struct.pack(">I", 2),
                struct.pack(">256I", *fanout),
                *oids,
                struct.pack(f">{n}I", *(self._objects[o][1] for o in oids)),
                struct.pack(f">{n}I", *small),
                struct.pack(f">{len(large)}Q", *large),
                pack_checksum,
            ]
        )
        return body + hashlib.sha1(body, usedforsecurity=False).digest()
