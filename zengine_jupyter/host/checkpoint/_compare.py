"""Which files differ between two snapshots (``git diff-tree -r -z --no-renames``, raw)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

__all__ = ["Blob", "TreeDiff", "parse_diff_tree"]


@dataclass(frozen=True)
class Blob:
    """A file as the target snapshot has it: git mode (``100644``, ``100755``, ``120000``)
    and object id."""

    mode: str
    oid: str

    @property
    def executable(self) -> bool:
        return self.mode == "100755"

    @property
    def symlink(self) -> bool:
        return self.mode == "120000"


@dataclass
class TreeDiff:
    """How to get from the current snapshot to the target one."""

    changed: list[str] = field(default_factory=list)
    """In both, with other contents, mode or type: written back."""
    missing: list[str] = field(default_factory=list)
    """In the target, not in the current snapshot (deleted since, or not storable now)."""
    delete: list[str] = field(default_factory=list)
    """Created since the target: removed."""
    blobs: dict[str, Blob] = field(default_factory=dict)
    """The target's mode and object of each changed or missing path."""


def parse_diff_tree(output: bytes) -> TreeDiff:
    """Parse ``diff-tree -r -z --no-renames CURRENT TARGET`` (the raw format: for each path
    ``:oldmode newmode oldid newid status`` then the path, NUL-separated)."""
    diff = TreeDiff()
    fields = output.split(b"\0")
    for header, raw in zip(fields[0::2], fields[1::2], strict=False):
        if not header.startswith(b":"):
            continue
        _old_mode, new_mode, _old_id, new_id, status = header[1:].decode("ascii").split()
        path = os.fsdecode(raw)
        if status == "D":
            diff.delete.append(path)
            continue
        if status == "A":
            diff.missing.append(path)
        else:  # M (modified), T (type changed)
            diff.changed.append(path)
        diff.blobs[path] = Blob(new_mode, new_id)
    return diff
