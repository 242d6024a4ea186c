"""Read a snapshot's file contents out of the shadow repository in bounded batches.

``git cat-file --batch-check`` gives each object's size; ``git cat-file --batch`` then
reads batches of at most ``BATCH_BYTES``, so a restore of many files holds one batch in
memory, never the whole snapshot. Up to 8 files (a stored file is at most 8 MiB) are read
in one call without asking their sizes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.host.checkpoint._scan import MAX_FILE_BYTES
from zengine_jupyter.protocol import CheckpointError

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from zengine_jupyter.host.checkpoint._shadow import ShadowRepository

__all__ = ["BATCH_BYTES", "read_blobs"]

BATCH_BYTES = 64 * 1024 * 1024


async def read_blobs(repo: ShadowRepository, oids: list[str]) -> AsyncIterator[dict[str, bytes]]:
    """Batches of ``{object id: content}`` covering every id in ``oids``."""
    unique = list(dict.fromkeys(oids))
    if not unique:
        return
    if len(unique) * MAX_FILE_BYTES <= BATCH_BYTES:  # few files: no need to ask their sizes
        yield await _read_batch(repo, unique)
        return
    sizes = _parse_sizes(await repo.git("cat-file", "--batch-check", stdin=_lines(unique)))
    batch: list[str] = []
    total = 0
    for oid in unique:
        if batch and total + sizes[oid] > BATCH_BYTES:
            yield await _read_batch(repo, batch)
            batch, total = [], 0
        batch.append(oid)
        total += sizes[oid]
    if batch:
        yield await _read_batch(repo, batch)


async def _read_batch(repo: ShadowRepository, oids: list[str]) -> dict[str, bytes]:
    out = await repo.git("cat-file", "--batch", stdin=_lines(oids))
    blobs: dict[str, bytes] = {}
    at = 0
    for _ in oids:
        end = out.index(b"\n", at)
        oid, kind, size = out[at:end].decode("ascii").split()
        if kind != "blob":
            raise CheckpointError(f"checkpoint object {oid} is a {kind}, not a file")
        start = end + 1
        blobs[oid] = out[start : start + int(size)]
        at = start + int(size) + 1
    return blobs


def _parse_sizes(out: bytes) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for line in out.decode("ascii").splitlines():
        parts = line.split()
        if len(parts) != 3:
            raise CheckpointError(f"a checkpoint object is missing: {line.strip()}")
        sizes[parts[0]] = int(parts[2])
    return sizes


def _lines(oids: list[str]) -> bytes:
    return "".join(f"{oid}\n" for oid in oids).encode("ascii")
