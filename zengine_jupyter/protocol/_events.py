"""What a session tells its frontends: :data:`EngineEvent`, tagged by ``kind``.

Events are the live view of a chat; the session log is its record. Every event that
reflects a record is published only after that record is written, so a frontend that
misses events (or gets a :class:`Resync`) can always rebuild its view from the log.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from zengine_jupyter.protocol._checkpoint import CheckpointInfo, RewindResult
from zengine_jupyter.protocol._data_model import DataModel

__all__ = [
    "ApprovalDecision",
    "ApprovalRequest",
    "ApprovalRequested",
    "CheckRecorded",
    "CheckpointTaken",
    "CostUpdated",
    "EngineError",
    "EngineEvent",
    "Notice",
    "ProviderBusy",
    "Resync",
    "Rewound",
    "TextStreamed",
    "ThinkingStreamed",
    "ToolCallApproved",
    "ToolCallDenied",
    "ToolCallFinished",
    "ToolCallProposed",
    "ToolCallStarted",
    "TrustRequired",
    "TurnEnded",
    "TurnStarted",
    "VerificationChanged",
]


class _Event(DataModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    session_id: str
    turn_id: str | None = None


class TurnStarted(_Event):
    kind: Literal["turn_started"] = "turn_started"
    prompt: str


class TurnEnded(_Event):
    kind: Literal["turn_ended"] = "turn_ended"
    status: Literal["completed", "interrupted", "failed"]
    reason: str | None = None


class TextStreamed(_Event):
    kind: Literal["text_streamed"] = "text_streamed"
    text: str


class ThinkingStreamed(_Event):
    kind: Literal["thinking_streamed"] = "thinking_streamed"
    text: str


class ToolCallProposed(_Event):
    """The model asked for a tool call (arguments complete)."""

    kind: Literal["tool_call_proposed"] = "tool_call_proposed"
    call_id: str
    tool: str
    arguments: dict[str, Any]
    summary: str
    """One line for a tool card: the command for Bash, the path for edits."""


class ToolCallApproved(_Event):
    kind: Literal["tool_call_approved"] = "tool_call_approved"
    call_id: str
    by: Literal["rule", "mode", "user", "auto_allow", "hook"]
    rule: str | None = None


class ToolCallDenied(_Event):
    kind: Literal["tool_call_denied"] = "tool_call_denied"
    call_id: str
    by: Literal["rule", "mode", "user", "hook", "no_answer"]
    reason: str
    diff: str | None = None
    """For an edit (Write, Edit, NotebookEdit): the unified diff it would have made, against
    the file as it was (the approval prompt's diff)."""


class ToolCallStarted(_Event):
    kind: Literal["tool_call_started"] = "tool_call_started"
    call_id: str


class ToolCallFinished(_Event):
    kind: Literal["tool_call_finished"] = "tool_call_finished"
    call_id: str
    is_error: bool
    output: str
    """What the model reads (possibly the end of a longer output)."""
    diff: str | None = None
    artifact: str | None = None


class ApprovalRequest(DataModel):
    """A question for the user: may this tool call run?"""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    call_id: str
    tool: str
    summary: str
    reason: str
    """Why the gate asks (no rule allows it, outside the project, ...)."""
    command: str | None = None
    paths: list[str] = []
    diff: str | None = None
    """For an edit: the unified diff it would make (``@@`` hunks with context, against the
    file's current content), the same text its result will carry."""
    suggested_rule: str
    """What "always allow" would add, e.g. ``Bash(git status:*)``."""


class ApprovalDecision(DataModel):
    """The user's answer. No answer in a non-interactive run means deny."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: Literal["allow_once", "always_allow", "deny", "always_deny"]
    layer: Literal["local", "user"] = "local"
    """Where "always allow" / "always deny" writes its rule: the project's settings.local.toml
    or the user's."""
    rule: str | None = None
    """The rule to write (default: the request's suggested rule)."""
    message: str | None = None
    """With deny: a note for the model (what to do instead)."""
    by: Literal["user", "no_answer"] = "user"
    """Who answered: the user, or a policy because nobody could (no frontend, ``--no``)."""


class ApprovalRequested(_Event):
    kind: Literal["approval_requested"] = "approval_requested"
    request: ApprovalRequest


class TrustRequired(_Event):
    """The project sets things that are withheld until the user trusts the folder."""

    kind: Literal["trust_required"] = "trust_required"
    folder: str
    withheld: list[str]


class ProviderBusy(_Event):
    """The provider did not answer (busy, overloaded, down): attempt ``attempt`` of
    ``attempts`` starts in ``wait_s`` seconds (the views count it down)."""

    kind: Literal["provider_busy"] = "provider_busy"
    attempt: int
    wait_s: float
    message: str
    attempts: int | None = None
    provider: str | None = None
    """The provider's host (``api.anthropic.com``), when known."""
    model: str | None = None
    reason: str | None = None
    """The provider's own words (``overloaded (529)``)."""


class CheckpointTaken(_Event):
    kind: Literal["checkpoint_taken"] = "checkpoint_taken"
    checkpoint: CheckpointInfo


class Rewound(_Event):
    """The chat or its files were rewound; with ``result.conversation`` a frontend rebuilds its
    view from the log (later messages are gone)."""

    kind: Literal["rewound"] = "rewound"
    result: RewindResult
    text: str = ""
    """What it did in the engine's words (``describe_rewind``), the same in every view."""
    warnings: list[str] = []
    """The other chats' edits it reverted, one line each (also among ``text``'s lines)."""


class CheckRecorded(_Event):
    kind: Literal["check_recorded"] = "check_recorded"
    check_id: str
    passed: bool
    summary: str


class VerificationChanged(_Event):
    kind: Literal["verification_changed"] = "verification_changed"
    badge: Literal["verified", "failed", "unverified", "not_applicable"]
    reason: str


class CostUpdated(_Event):
    kind: Literal["cost_updated"] = "cost_updated"
    turn_usd: float | None
    """None when a price in the turn is unknown."""
    session_usd: float | None


class Notice(_Event):
    """Something the user should know that is not an error (sandbox off, MCP servers ready)."""

    kind: Literal["notice"] = "notice"
    topic: str
    text: str


class EngineError(_Event):
    kind: Literal["error"] = "error"
    message: str
    hint: str | None = None
    cause: str | None = None
    """The failed model request's ``ErrorEvent.kind`` (``setup``: no model is configured,
    so a view offers the setup view); None for an engine failure."""


class Resync(_Event):
    """This subscriber fell too far behind and missed events: rebuild the view from the log."""

    kind: Literal["resync"] = "resync"


EngineEvent = Annotated[
    TurnStarted
    | TurnEnded
    | TextStreamed
    | ThinkingStreamed
    | ToolCallProposed
    | ToolCallApproved
    | ToolCallDenied
    | ToolCallStarted
    | ToolCallFinished
    | ApprovalRequested
    | TrustRequired
    | ProviderBusy
    | CheckpointTaken
    | Rewound
    | CheckRecorded
    | VerificationChanged
    | CostUpdated
    | Notice
    | EngineError
    | Resync,
    Field(discriminator="kind"),
]
"""Every event a session publishes; JSON-serialisable, tagged by ``kind``."""
