"""Put a checkpoint's files back: snapshot first, then rewrite only the files that differ."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path, PurePosixPath

from zengine_jupyter.host.checkpoint._compare import parse_diff_tree
from zengine_jupyter.host.checkpoint._scan import MAX_FILE_BYTES
from zengine_jupyter.host.checkpoint._shadow import ShadowRepository, _nul_join
from zengine_jupyter.protocol._checkpoint import CheckpointsOff, CodeRestore, NotStored
from zengine_jupyter.protocol._errors import CheckpointError

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
        out = await repo.git(
            "diff-tree", "-r", "-z", "--no-renames", "--name-status", current.id, target.id
        )
        diff = parse_diff_tree(out)
        unstored = {n.path: n for n in (*current.not_stored, *target.not_stored)}
        nested = [n.path for n in unstored.values() if n.reason == "nested_repository"]
        left_alone = dict(unstored)
        write = list(diff.changed)
        for rel in diff.missing:
            if _inside(rel, nested) or _on_disk(repo.root / rel):
                # on disk but not in the current snapshot: ignored, too large or inside a
                # nested repository. Never overwrite what we could not store.
                left_alone.setdefault(rel, _describe(repo.root / rel, rel))
            else:
                write.append(rel)
        removed = [rel for rel in diff.delete if not _inside(rel, nested)]
        for rel in removed:
            _remove_file(repo.root, rel)
        if write:
            await repo.git(
                "checkout", target.id, "--pathspec-from-file=-", "--pathspec-file-nul",
                stdin=_nul_join(write),
            )  # fmt: skip
        await repo.snapshot_locked(f"after rewind to {target.id[:12]}")
    return CodeRestore(
        target=target.id,
        safety_checkpoint=current.id,
        restored=sorted(set(write)),
        removed=sorted(removed),
        left_alone=sorted(left_alone.values(), key=lambda n: n.path),
    )


def _on_disk(path: Path) -> bool:
    return os.path.lexists(path)


def _inside(rel: str, folders: list[str]) -> bool:
    return any(rel.startswith(folder) for folder in folders)


def _describe(path: Path, rel: str) -> NotStored:
    try:
        size = path.lstat().st_size
    except OSError:
        return NotStored(path=rel, reason="nested_repository")
    if size > MAX_FILE_BYTES:
        return NotStored(path=rel, reason="too_large", size=size)
    return NotStored(path=rel, reason="ignored", size=size)


def _remove_file(root: Path, rel: str) -> None:
    """Delete ``rel`` and then any folders it leaves empty (never ``root`` itself)."""
    path = root / rel
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    for parent in PurePosixPath(rel).parents:
        if str(parent) == ".":
            break
        try:
            (root / parent).rmdir()
        except OSError:
            break
