"""What a chat's log holds: one :data:`LogRecord` per JSON line, tagged by ``kind``.

Every record has an ``id`` (unique within the chat) and a ``ts`` (when it was made,
UTC). Records are immutable and the log is append-only: a later record may close,
answer or undo an earlier one (a rewind, a turn end, a dismissed question), but
nothing is ever edited in place.

To persist something new, add a record class here, put it in :data:`LogRecord`, and
fold it in ``store/_replay.py``. A reader meeting a kind it does not know keeps the
line as an :class:`UnknownRecord` and replay skips it, so old readers survive new logs.

The kinds that are not in the Session store issue's list: ``session`` (the header a
chat starts with: project, format, where it was imported from) and ``title``; both
exist so that ``meta.json`` can always be rebuilt from the log alone.
"""

from __future__ import annotations

import functools
import operator
import os
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, ConfigDict, Field

from zengine_jupyter.protocol._data_model import DataModel
from zengine_jupyter.protocol._verification import CheckRecord

__all__ = [
    "ApprovalRecord",
    "CheckLogRecord",
    "CheckpointRecord",
    "CompactionRecord",
    "LogRecord",
    "MessageRecord",
    "ModeChangeRecord",
    "ModelChangeRecord",
    "PlanRecord",
    "QuestionRecord",
    "RecordedImage",
    "RecordedToolCall",
    "RewindRecord",
    "SessionRecord",
    "SubagentEndRecord",
    "SubagentStartRecord",
    "ThinkingBlock",
    "TitleRecord",
    "ToolResultRecord",
    "TurnEndRecord",
    "TurnStartRecord",
    "TurnStatus",
    "UnknownRecord",
    "UsageRecord",
    "VerificationRecord",
    "new_id",
]

TurnStatus = Literal["completed", "interrupted", "failed"]
"""How a turn ended. A turn without a :class:`TurnEndRecord` is still open (or was cut short)."""


def new_id() -> str:
    """A fresh 16-hex-digit id; unique enough within one chat."""
    return os.urandom(8).hex()  # what secrets.token_hex(8) does, in two calls instead of six


_EMPTY = operator.not_
_NONE = functools.partial(operator.is_, None)
"""``exclude_if`` tests written in C: the serializer calls them for every record it writes,
and a Python lambda would add a frame to each."""


_now = functools.partial(datetime.now, UTC)
"""The time now, with its zone (a C-level call: it stamps every record)."""


class _Record(DataModel):
    """Fields every record has. Unknown extra fields (from a newer writer) are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str = Field(default_factory=new_id)
    ts: AwareDatetime = Field(default_factory=_now)
    """When it happened; a time without a timezone is not accepted."""


class SessionRecord(_Record):
    """The first line of every chat: what it is about and which format wrote it."""

    kind: Literal["session"] = "session"
    format: int = 2
    project: str | None = None
    """The project folder the chat works in (absolute path), if any."""
    imported_from: Literal["v1"] | None = None
    """Set when the chat was converted from a v1 ``<id>.jsonl`` file (docs/sessions.md)."""


class TitleRecord(_Record):
    """The chat's title (set once generated, or when the user renames it; the last one wins)."""

    kind: Literal["title"] = "title"
    title: str


class ThinkingBlock(DataModel):
    """A reasoning block; ``signature`` is what Anthropic needs to accept it back."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    text: str
    signature: str | None = None


class RecordedToolCall(DataModel):
    """A tool call the assistant made; its answer is a :class:`ToolResultRecord` with this id."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)


class RecordedImage(DataModel):
    """An image a tool result carried (a RunCell plot) or the user attached (an ACP prompt's
    image), by reference: the bytes are the file
    ``artifacts/<file>``, named by their SHA-256, so a log line stays small and the same plot
    twice is stored once; ``sha256`` and ``size`` say which bytes were sent."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    media_type: Literal["image/png", "image/jpeg", "image/gif", "image/webp"]
    sha256: str
    size: int
    file: str
    width: int | None = None
    height: int | None = None


class MessageRecord(_Record):
    """A user or assistant message: text, the assistant's thinking and its tool calls."""

    kind: Literal["message"] = "message"
    role: Literal["user", "assistant"]
    text: str = ""
    thinking: tuple[ThinkingBlock, ...] = ()
    tool_calls: tuple[RecordedToolCall, ...] = ()
    images: tuple[RecordedImage, ...] = Field(default=(), exclude_if=_EMPTY)
    """A user message's attached images (by reference), sent after its text; left out when
    none."""


class ToolResultRecord(_Record):
    """The answer to one tool call. ``repair`` marks an "interrupted" answer written on resume."""

    kind: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    name: str = ""
    output: str = ""
    is_error: bool = False
    artifact: str | None = None
    """The full output under ``artifacts/`` when ``output`` was truncated."""
    repair: bool = False
    diff: str | None = Field(default=None, exclude_if=_NONE)
    """The unified diff an edit made (as ``tool_call_finished`` carried it), so a view rebuilt
    from the log draws the same diff; not written at all for the calls that have none."""
    images: tuple[RecordedImage, ...] = Field(default=(), exclude_if=_EMPTY)
    """Images sent to the model after ``output`` (by reference); left out when none."""


class TurnStartRecord(_Record):
    """A turn begins (the user's message follows)."""

    kind: Literal["turn_start"] = "turn_start"
    turn_id: str = Field(default_factory=new_id)


class TurnEndRecord(_Record):
    """A turn ends; ``reason`` says why when it did not complete."""

    kind: Literal["turn_end"] = "turn_end"
    turn_id: str
    status: TurnStatus
    reason: str | None = None
    repair: bool = False


class ApprovalRecord(_Record):
    """The permission gate's decision on one tool call, and who made it."""

    kind: Literal["approval"] = "approval"
    tool_call_id: str
    tool: str
    decision: Literal["allow_once", "allow_always", "deny"]
    decided_by: Literal["user", "rule", "mode", "sandbox", "policy", "no_answer"] = "user"
    rule: str | None = None
    message: str | None = None


class CheckLogRecord(_Record):
    """One verification check that ran: the evidence the badge is read from."""

    kind: Literal["check"] = "check"
    check: CheckRecord
    turn_id: str | None = None


class VerificationRecord(_Record):
    """The verification badge changed (as ``verification_changed`` said), so a view rebuilt
    from the log shows the same badge and reason."""

    kind: Literal["verification"] = "verification"
    badge: Literal["verified", "failed", "unverified", "not_applicable"]
    reason: str = ""
    turn_id: str | None = None


class CheckpointRecord(_Record):
    """A snapshot of the project's files taken before a turn's first change."""

    kind: Literal["checkpoint"] = "checkpoint"
    checkpoint_id: str
    turn_id: str | None = None
    commit: str = ""
    """The shadow repository's commit holding the snapshot."""


class CompactionRecord(_Record):
    """The model's working set was summarised: from here on it starts with ``summary``."""

    kind: Literal["compaction"] = "compaction"
    summary: str
    tokens_before: int | None = None


class RewindRecord(_Record):
    """Undo the chat back to the start of turn ``to_turn_id``: it and every later turn drop.

    Usage already spent stays in the chat's cost.
    """

    kind: Literal["rewind"] = "rewind"
    to_turn_id: str
    checkpoint_id: str | None = None
    """The checkpoint whose files were restored, if files were rewound too."""


class ModeChangeRecord(_Record):
    """The permission mode changed (``default``, ``plan``, ``accept_edits``, ...)."""

    kind: Literal["mode_change"] = "mode_change"
    mode: str


class ModelChangeRecord(_Record):
    """The chat's main model changed."""

    kind: Literal["model_change"] = "model_change"
    model: str
    provider: str | None = None


class UsageRecord(_Record):
    """Tokens one model request used, by type, and what it cost.

    ``cost_usd`` is ``None`` when the price is unknown. ``agent_id`` is set when a
    subagent spent it (its own log is ``agents/<agent_id>.jsonl``).
    """

    kind: Literal["usage"] = "usage"
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None
    agent_id: str | None = None


class SubagentStartRecord(_Record):
    """A subagent started; its transcript goes to ``agents/<agent_id>.jsonl``."""

    kind: Literal["subagent_start"] = "subagent_start"
    agent_id: str
    agent_type: str = ""
    description: str = ""


class SubagentEndRecord(_Record):
    """A subagent finished (``repair`` marks one marked failed on resume)."""

    kind: Literal["subagent_end"] = "subagent_end"
    agent_id: str
    status: Literal["completed", "failed", "interrupted"]
    summary: str = ""
    repair: bool = False


class QuestionRecord(_Record):
    """A question the agent asked the user; the same ``question_id`` later answered or dismissed."""

    kind: Literal["question"] = "question"
    question_id: str
    state: Literal["asked", "answered", "dismissed"]
    text: str = ""
    options: tuple[str, ...] = ()
    answer: str | None = None
    repair: bool = False


class PlanRecord(_Record):
    """A plan the agent proposed (plan mode); the same ``plan_id`` later decided or dismissed."""

    kind: Literal["plan"] = "plan"
    plan_id: str
    state: Literal["proposed", "approved", "rejected", "dismissed"]
    text: str = ""
    repair: bool = False


LogRecord = Annotated[
    SessionRecord
    | TitleRecord
    | MessageRecord
    | ToolResultRecord
    | TurnStartRecord
    | TurnEndRecord
    | ApprovalRecord
    | CheckLogRecord
    | VerificationRecord
    | CheckpointRecord
    | CompactionRecord
    | RewindRecord
    | ModeChangeRecord
    | ModelChangeRecord
    | UsageRecord
    | SubagentStartRecord
    | SubagentEndRecord
    | QuestionRecord
    | PlanRecord,
    Field(discriminator="kind"),
]
"""One line of a chat log, tagged by ``kind``."""


class UnknownRecord(DataModel):
    """A line whose ``kind`` this version does not know: kept verbatim, skipped by replay."""

    model_config = ConfigDict(frozen=True)

    kind: str
    raw: str
    """The line as it was in the file (without the newline)."""
    line: int
    """Its 1-based line number."""
