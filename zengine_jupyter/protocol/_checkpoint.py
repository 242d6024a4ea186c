"""What a checkpoint is, what it could not store, and what a code rewind did."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = [
    "REWIND_LIMITS",
    "CheckpointInfo",
    "CheckpointsOff",
    "CodeRestore",
    "NotStored",
]

REWIND_LIMITS = (
    "Rewind puts back files only: it cannot undo effects outside them, "
    "such as installed packages, a database change or a git push."
)


class NotStored(BaseModel):
    """A file (or folder) a snapshot left out, and why. Rewind leaves these alone."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    """Relative to the project root, with ``/`` separators; folders end in ``/``."""
    reason: Literal["too_large", "nested_repository", "ignored"]
    size: int | None = None


class CheckpointInfo(BaseModel):
    """One snapshot of the project's files, kept in the shadow repository."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """The shadow commit (40 hex digits)."""
    message: str
    created: datetime
    file_count: int
    not_stored: list[NotStored] = []


class CheckpointsOff(BaseModel):
    """Checkpoints are turned off for this project; ``reason`` is the notice to show."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reason: str
    kind: Literal["too_many_files", "unsafe_root"]


class CodeRestore(BaseModel):
    """The result of putting a checkpoint's files back."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    target: str
    safety_checkpoint: str
    """Snapshot taken just before restoring, so the rewind itself can be undone."""
    restored: list[str] = []
    """Files written back (changed or deleted since the checkpoint)."""
    removed: list[str] = []
    """Files created since the checkpoint, now deleted."""
    left_alone: list[NotStored] = []
    """Files the snapshots could not store: untouched."""
    note: str = REWIND_LIMITS
