"""What a checkpoint is, what it could not store, and what a code rewind did."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import ConfigDict

from zengine_jupyter.protocol._data_model import DataModel

__all__ = [
    "REWIND_LIMITS",
    "CheckpointGc",
    "CheckpointInfo",
    "CheckpointsOff",
    "CodeRestore",
    "NotStored",
    "OtherChatEdits",
    "RewindPoint",
    "RewindResult",
]

REWIND_LIMITS = (
    "Rewind puts back files only: it cannot undo effects outside them, "
    "such as installed packages, a database change or a git push."
)


class NotStored(DataModel):
    """A file (or folder) a snapshot left out, and why. Rewind leaves these alone."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    """Relative to the project root, with ``/`` separators; folders end in ``/``."""
    reason: Literal["too_large", "nested_repository", "ignored"]
    size: int | None = None


class CheckpointInfo(DataModel):
    """One snapshot of the project's files, kept in the shadow repository."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """The shadow commit (40 hex digits)."""
    message: str
    created: datetime
    file_count: int
    not_stored: list[NotStored] = []


class CheckpointsOff(DataModel):
    """Checkpoints are turned off for this project; ``reason`` is the notice to show."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reason: str
    kind: Literal["too_many_files", "unsafe_root"]


class CodeRestore(DataModel):
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


class OtherChatEdits(DataModel):
    """Another chat of the same project that changed files after a checkpoint.

    Every chat of a project snapshots the whole project, so a code rewind to that checkpoint
    puts back those files too: this is the warning before, and the list after.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    session_id: str
    title: str
    paths: list[str] = []
    """Files its Write, Edit and NotebookEdit calls changed since then (relative to the
    project, ``/`` separators); in a :class:`RewindResult`, only those the rewind put back."""
    commands: int = 0
    """Shell commands it ran since then: what they changed on disk is not known by name."""


class RewindPoint(DataModel):
    """A user message a chat can be rewound to (the start of its turn)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    number: int
    """1-based position among the chat's visible user messages (``--to N``)."""
    turn_id: str
    message_id: str
    prompt: str
    created: datetime
    checkpoint_id: str | None = None
    """The snapshot a code rewind restores: the one taken in this turn, else the next one
    after it; None when no tool ran from this message on (the agent changed no file since)."""
    checkpoint_at: datetime | None = None
    """When that snapshot was taken (the start of its turn): a code rewind puts back what
    changed after this, whoever changed it."""
    other_chats: list[OtherChatEdits] = []
    """Other chats of the project that changed files since ``checkpoint_at``: a code rewind
    would revert their edits too (filled by ``rewind_points``)."""


class RewindResult(DataModel):
    """What a rewind did: the conversation, the files, or both."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    to_turn_id: str
    prompt: str
    """The user message rewound to (a frontend may put it back in the input box)."""
    conversation: bool
    """Whether the chat was rewound (that message and everything after it left the view and
    the model's context)."""
    messages_removed: int = 0
    code: CodeRestore | None = None
    """What the file rewind did; None when files were not asked for or nothing was to do."""
    code_note: str | None = None
    """Why the files were left as they are, when they were asked for but not restored."""
    other_chats: list[OtherChatEdits] = []
    """Other chats of the project whose edits since the checkpoint this code rewind reverted
    (their files it put back; every chat of a project shares its checkpoints)."""
    open_notebooks: list[str] = []
    """Notebooks open in a page whose cells this code rewind put back in the page's document
    (as they were before the first rewound turn edited them live); absolute paths."""
    note: str = REWIND_LIMITS


class CheckpointGc(DataModel):
    """What checkpoint retention did to one project's shadow repository."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    project: str
    kept: int
    removed: int
    size_before: int
    """Bytes the shadow repository took before (objects, index and bookkeeping)."""
    size_after: int
    budget: int
    """The size budget in bytes (``checkpoints.max_size_mb``)."""
    max_age_days: int
    over_budget: bool = False
    """The repository was over the size budget when retention ran."""
    still_over_budget: bool = False
    """Even the newest snapshot alone does not fit the budget."""
