"""Which files differ between two snapshots (``git diff-tree -r -z --name-status``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

__all__ = ["TreeDiff", "parse_diff_tree"]


@dataclass
class TreeDiff:
    """How to get from the current snapshot to the target one."""

    changed: list[str] = field(default_factory=list)
    """In both, with other contents or type: written back."""
    missing: list[str] = field(default_factory=list)
    """In the target, not in the current snapshot (deleted since, or not storable now)."""
    delete: list[str] = field(default_factory=list)
    """Created since the target: removed."""


def parse_diff_tree(output: bytes) -> TreeDiff:
    """Parse ``diff-tree -r -z --no-renames --name-status CURRENT TARGET``."""
    diff = TreeDiff()
    fields = output.split(b"\0")
    for status, raw in zip(fields[0::2], fields[1::2], strict=False):
        if not status:
            continue
        path = os.fsdecode(raw)
        if status == b"D":
            diff.delete.append(path)
        elif status == b"A":
            diff.missing.append(path)
        else:  # M (modified), T (type changed)
            diff.changed.append(path)
    return diff
