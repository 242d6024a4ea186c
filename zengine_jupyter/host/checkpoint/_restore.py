"""Put a checkpoint's files back: snapshot first, then rewrite only the files that differ.

The files are written by us, not by ``git checkout``: each blob is read from the shadow
repository and written through ``host._safe_fs`` (no symlink followed: a folder that became
a symlink since the snapshot is replaced by a real folder, as git does, and nothing is
written or removed through it, even if it is swapped mid-restore). A file that still exists
keeps its permission bits, with the exec bits as the snapshot has them; a re-created one
gets git's mode (644 or 755) under the umask.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from zengine_jupyter.host._safe_fs import Directories, WriteOptions
from zengine_jupyter.host.checkpoint._blobs import read_blobs
from zengine_jupyter.host.checkpoint._compare import Blob, parse_diff_tree
from zengine_jupyter.host.checkpoint._scan import MAX_FILE_BYTES
from zengine_jupyter.protocol import (
    CheckpointError,
    CheckpointsOff,
    CodeRestore,
    NotStored,
    PathError,
)

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.host.checkpoint._shadow import ShadowRepository

__all__ = ["restore_code"]


async def restore_code(repo: ShadowRepository, checkpoint_id: str) -> CodeRestore:
    """Make the project's files match checkpoint ``checkpoint_id``.

    Changed and deleted files come back, files created since are removed, and files
    a snapshot could not store (too large, nested repositories, ignored) are left alone
    and listed. The state before the restore is snapshotted first, so it can be undone.
    """
    async with repo.lock():
        target = await repo.get(checkpoint_id)
        current = await repo.snapshot_locked(f"before rewind to {target.id[:12]}")
        if isinstance(current, CheckpointsOff):
            raise CheckpointError(current.reason)
        out = await repo.git("diff-tree", "-r", "-z", "--no-renames", current.id, target.id)
        diff = parse_diff_tree(out)
        unstored = {n.path: n for n in (*current.not_stored, *target.not_stored)}
        nested = [n.path for n in unstored.values() if n.reason == "nested_repository"]
        left_alone = dict(unstored)
        failed: list[str] = []
        with Directories(repo.root) as dirs:
            on_disk = await asyncio.to_thread(_on_disk, dirs, repo.root, diff.missing)
            write = list(diff.changed)
            for rel in diff.missing:
                if _inside(rel, nested) or rel in on_disk:
                    # on disk but not in the current snapshot: ignored, too large or inside a
                    # nested repository. Never overwrite what we could not store.
                    left_alone.setdefault(rel, _describe(on_disk.get(rel), rel))
                else:
                    write.append(rel)
            removed = [rel for rel in diff.delete if not _inside(rel, nested)]
            failed += await asyncio.to_thread(_remove_all, dirs, repo.root, removed)
            failed += await _write_all(repo, dirs, {rel: diff.blobs[rel] for rel in write})
        await repo.snapshot_locked(f"after rewind to {target.id[:12]}")
    if failed:
        raise CheckpointError(
            f"{len(failed)} file(s) could not be restored: " + "; ".join(failed[:5]),
            hint=f"the files before the rewind are in checkpoint {current.id[:12]}",
        )
    return CodeRestore(
        target=target.id,
        safety_checkpoint=current.id,
        restored=sorted(set(write)),
        removed=sorted(removed),
        left_alone=sorted(left_alone.values(), key=lambda n: n.path),
    )


async def _write_all(
    repo: ShadowRepository, dirs: Directories, blobs: dict[str, Blob]
) -> list[str]:
    failed: list[str] = []
    by_oid: dict[str, list[str]] = {}
    for rel, blob in blobs.items():
        by_oid.setdefault(blob.oid, []).append(rel)
    async for batch in read_blobs(repo, list(by_oid)):
        jobs = [(rel, blobs[rel], data) for oid, data in batch.items() for rel in by_oid[oid]]
        failed += await asyncio.to_thread(_write_batch, dirs, repo.root, jobs)
    return failed


def _write_batch(dirs: Directories, root: Path, jobs: list[tuple[str, Blob, bytes]]) -> list[str]:
    failed = []
    for rel, blob, data in jobs:
        path = root / rel
        try:
            if blob.symlink:
                dirs.write_symlink(path, data.decode("utf-8", "surrogateescape"))
            else:
                options = WriteOptions(
                    new_mode=0o777 if blob.executable else 0o666,
                    executable=blob.executable,
                    sync=False,
                    create_parents=True,
                    restoring=True,
                )
                dirs.write_bytes(path, data, options)
        except PathError as exc:
            failed.append(str(exc))
    return failed


def _remove_all(dirs: Directories, root: Path, removed: list[str]) -> list[str]:
    failed = []
    for rel in removed:
        try:
            dirs.remove(root / rel, up_to=root)
        except PathError as exc:
            failed.append(str(exc))
    return failed


def _on_disk(dirs: Directories, root: Path, paths: list[str]) -> dict[str, int]:
    """Which of ``paths`` exist in the project (with their size), looking without following
    any symlink: behind a symlink a path is not in the project."""
    found: dict[str, int] = {}
    for rel in paths:
        try:
            info = dirs.lstat(root / rel)
        except PathError:
            continue
        if info is not None:
            found[rel] = info.st_size
    return found


def _inside(rel: str, folders: list[str]) -> bool:
    return any(rel.startswith(folder) for folder in folders)


def _describe(size: int | None, rel: str) -> NotStored:
    if size is None:
        return NotStored(path=rel, reason="nested_repository")
    if size > MAX_FILE_BYTES:
        return NotStored(path=rel, reason="too_large", size=size)
    return NotStored(path=rel, reason="ignored", size=size)
