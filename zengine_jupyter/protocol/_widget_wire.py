"""The cell widgets' messages: what ``%%agent``'s turn view, the status widget and the rewind
widget exchange with the kernel as anywidget ``custom`` messages.

Every message carries ``v`` (:data:`~zengine_jupyter.protocol.WIRE_VERSION`, the same number as
the panel's wire) and a ``kind`` tag. A view sends requests, each with an ``id`` it chose; the
kernel answers each with exactly one :class:`WidgetReply` (same ``id``; ``ok`` false carries
``error`` and maybe ``hint``, words for the user). A request the kernel cannot parse (another
``v``, an unknown ``kind``, a missing field) gets a failed reply naming the problem, never a
traceback. Which requests a widget answers:

- turn view (``%%agent``): :data:`TurnWidgetRequest` (``replay``, ``interrupt``,
  ``approval_answer``); the kernel streams :class:`WidgetEvents`, batches of the chat's
  :data:`~zengine_jupyter.protocol.EngineEvent` s plus :class:`TurnResult` when the turn is
  over (a ``replay`` gets every event so far, with ``replay`` true);
- status widget: :data:`StatusWidgetRequest` (``refresh``, ``trust_answer``);
- rewind widget: :data:`RewindWidgetRequest` (``refresh``, ``rewind``); its replies carry
  ``points`` and ``result``;
- setup widget (``%zengine setup``): :data:`SetupWidgetRequest` (``setup_*``, the panel's
  setup requests); its replies carry ``setup``.

Everything else a view shows is widget state (``_widget_state.py``). The TypeScript types are
generated with the panel's (``scripts/gen-protocol-ts``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import (
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from zengine_jupyter.protocol._checkpoint import RewindPoint, RewindResult
from zengine_jupyter.protocol._data_model import DataModel
from zengine_jupyter.protocol._events import ApprovalDecision, EngineEvent
from zengine_jupyter.protocol._records import TurnStatus
from zengine_jupyter.protocol._setup import (
    SetupAnswer,
    SetupFindLocal,
    SetupKeyRequest,
    SetupModelsRequest,
    SetupSaveRequest,
    SetupStateRequest,
    SetupTestRequest,
)
from zengine_jupyter.protocol._wire_version import WIRE_VERSION, WireVersion

__all__ = [
    "ReplayRequest",
    "RewindClick",
    "RewindOutcome",
    "RewindPointView",
    "RewindScope",
    "RewindWidgetRequest",
    "SetupWidgetRequest",
    "StatusTrustAnswer",
    "StatusWidgetRequest",
    "TurnApprovalAnswer",
    "TurnInterrupt",
    "TurnResult",
    "TurnViewEvent",
    "TurnWidgetRequest",
    "WidgetEvents",
    "WidgetMessage",
    "WidgetRefresh",
    "WidgetReply",
    "WidgetRequest",
]

RewindScope = Literal["code", "conversation", "both"]


class _WidgetWire(DataModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    v: WireVersion = WIRE_VERSION


class _WidgetRequest(_WidgetWire):
    id: str
    """Chosen by the view; the :class:`WidgetReply` carries it back."""


# ---------------------------------------------------------------- view -> kernel


class ReplayRequest(_WidgetRequest):
    """Turn view: send every event of the turn so far (a view that opened late, a reload)."""

    kind: Literal["replay"] = "replay"


class TurnInterrupt(_WidgetRequest):
    """Turn view: stop this turn."""

    kind: Literal["interrupt"] = "interrupt"


class TurnApprovalAnswer(_WidgetRequest):
    """Turn view: a click on an approval prompt."""

    kind: Literal["approval_answer"] = "approval_answer"
    request_id: str
    """``ApprovalRequest.id``; one already answered gets a failed reply."""
    decision: ApprovalDecision


class WidgetRefresh(_WidgetRequest):
    """Status widget: load the details; rewind widget: list the rewind points again."""

    kind: Literal["refresh"] = "refresh"


class StatusTrustAnswer(_WidgetRequest):
    """Status widget: the trust banner's "Trust" (``trust`` true) or "Not now"."""

    kind: Literal["trust_answer"] = "trust_answer"
    trust: bool


class RewindClick(_WidgetRequest):
    """Rewind widget: restore the code, the conversation or both, to before ``to``."""

    kind: Literal["rewind"] = "rewind"
    to: str
    """The user message's turn id (or its number, as ``%agent /rewind N``)."""
    what: RewindScope


TurnWidgetRequest = Annotated[
    ReplayRequest | TurnInterrupt | TurnApprovalAnswer, Field(discriminator="kind")
]
StatusWidgetRequest = Annotated[WidgetRefresh | StatusTrustAnswer, Field(discriminator="kind")]
RewindWidgetRequest = Annotated[WidgetRefresh | RewindClick, Field(discriminator="kind")]
SetupWidgetRequest = Annotated[
    SetupStateRequest
    | SetupFindLocal
    | SetupModelsRequest
    | SetupKeyRequest
    | SetupTestRequest
    | SetupSaveRequest,
    Field(discriminator="kind"),
]
"""The ``%zengine setup`` widget: the same requests as the panel's setup view."""
WidgetRequest = Annotated[
    ReplayRequest
    | TurnInterrupt
    | TurnApprovalAnswer
    | WidgetRefresh
    | StatusTrustAnswer
    | RewindClick
    | SetupStateRequest
    | SetupFindLocal
    | SetupModelsRequest
    | SetupKeyRequest
    | SetupTestRequest
    | SetupSaveRequest,
    Field(discriminator="kind"),
]
"""Every request any widget view sends (each widget answers its own subset)."""


# ---------------------------------------------------------------- kernel -> view


class TurnResult(DataModel):
    """The turn is over (or failed before it ran): the last event a turn view gets."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["turn_result"] = "turn_result"
    status: TurnStatus
    reason: str | None = None
    text: str = ""
    """The model's last answer."""
    changed: list[str] = []
    """The files the turn changed, as the project shows them."""
    cost: str = ""
    """The chat's cost line (``/cost``)."""


TurnViewEvent = EngineEvent | TurnResult
"""What a turn view shows: the chat's events, then the kernel's :class:`TurnResult`."""


class WidgetEvents(_WidgetWire):
    """A batch of events for a turn view (what was already queued goes in one message)."""

    kind: Literal["events"] = "events"
    events: list[TurnViewEvent]
    replay: bool = False
    """True in the answer to a ``replay``: every event so far; the view starts over."""


class RewindPointView(RewindPoint):
    """A rewind point as the rewind widget lists it."""

    warnings: list[str] = Field(default_factory=list)
    """Lines naming the other chats' edits a code rewind to it would revert too."""


class RewindOutcome(RewindResult):
    """A rewind the widget did, as it shows it."""

    what: RewindScope
    text: str
    """The plain-words description (``describe_rewind``)."""
    warnings: list[str] = Field(default_factory=list)
    """The other chats' edits it reverted."""


class WidgetReply(_WidgetWire):
    """The one answer to a widget request; ``ok`` false carries ``error``, ``ok`` true never.

    Fields that are None are left out of the JSON (a view reads them as absent)."""

    kind: Literal["reply"] = "reply"
    id: str | None
    """The request's id; None when the request had no string ``id``."""
    ok: bool
    error: str | None = None
    hint: str | None = None
    """What to do next."""
    points: list[RewindPointView] | None = None
    """rewind widget, ``refresh`` and ``rewind``: the points now."""
    result: RewindOutcome | None = None
    """rewind widget, ``rewind``: what it did."""
    setup: SetupAnswer | None = None
    """setup widget: the answer to a ``setup_*`` request."""

    @model_validator(mode="after")
    def _error_iff_failed(self) -> Self:
        if self.ok == (self.error is not None):
            raise ValueError("a reply has an error exactly when ok is false")
        return self

    @model_serializer(mode="wrap")
    def _without_nones(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if v is not None or k == "id"}


WidgetMessage = Annotated[WidgetEvents | WidgetReply, Field(discriminator="kind")]
"""Everything the kernel sends a widget view as a custom message (the rest is state)."""
