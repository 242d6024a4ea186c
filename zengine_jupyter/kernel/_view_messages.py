"""The cell widgets' messages, built and parsed only through their models
(``protocol/_widget_wire.py``; an events batch is its events' models in the envelope the
model dumps); pydantic is imported with the first message, never by ``%load_ext``.

:func:`parse_request` turns a view's ``custom`` message into its typed request, or into the
failed :class:`~zengine_jupyter.protocol.WidgetReply` that answers it (another wire version, a
kind this widget does not answer, a missing or wrong field): never an exception.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Literal

from zengine_jupyter.protocol import WIRE_VERSION

if TYPE_CHECKING:
    from collections.abc import Iterable

    from pydantic import TypeAdapter

    from zengine_jupyter.protocol import TurnViewEvent

__all__ = ["WidgetName", "events_message", "parse_request", "reply_message"]

WidgetName = Literal["turn", "status", "rewind", "setup"]
_KINDS: dict[WidgetName, tuple[str, ...]] = {
    "turn": ("approval_answer", "interrupt", "replay"),
    "status": ("refresh", "trust_answer"),
    "rewind": ("refresh", "rewind"),
    "setup": ("setup_find_local", "setup_key", "setup_models", "setup_save", "setup_state",
              "setup_test"),
}  # fmt: skip


@functools.cache
def _adapter(widget: WidgetName) -> TypeAdapter[Any]:
    from pydantic import TypeAdapter

    from zengine_jupyter.protocol import (
        RewindWidgetRequest,
        SetupWidgetRequest,
        StatusWidgetRequest,
        TurnWidgetRequest,
    )

    unions: dict[WidgetName, Any] = {"turn": TurnWidgetRequest, "status": StatusWidgetRequest,
                                     "rewind": RewindWidgetRequest,
                                     "setup": SetupWidgetRequest}  # fmt: skip
    return TypeAdapter(unions[widget])


def parse_request(widget: WidgetName, content: Any) -> tuple[Any, dict[str, Any] | None]:
    """``(request, None)``, or ``(None, the failed reply's JSON)`` for a request ``widget``
    cannot take."""
    from pydantic import ValidationError

    from zengine_jupyter.kernel._requests import validation_problems

    data = content if isinstance(content, dict) else {}
    raw_id = data.get("id")
    request_id = raw_id if isinstance(raw_id, str) else None
    kind = data.get("kind")
    if data.get("v") != WIRE_VERSION:
        return None, reply_message(
            request_id,
            error=f"widget message version {data.get('v')!r} is not {WIRE_VERSION}",
            hint="reload the page (the kernel's zengine-jupyter changed since it loaded)",
        )
    if kind not in _KINDS[widget]:
        answers = ", ".join(_KINDS[widget])
        return None, reply_message(
            request_id, error=f"unknown request kind {kind!r}: this widget answers {answers}"
        )
    try:
        return _adapter(widget).validate_python(data), None
    except ValidationError as exc:
        problems = validation_problems(exc)
        return None, reply_message(request_id, error=f"invalid {kind!r} request: {problems}")


def reply_message(
    request_id: str | None,
    *,
    error: str | None = None,
    hint: str | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """The JSON of the one :class:`~zengine_jupyter.protocol.WidgetReply` to a request:
    ``ok`` exactly when there is no ``error`` (a failed reply carries no other field)."""
    from zengine_jupyter.protocol import WidgetReply

    if error is not None:
        fields = {"error": error, "hint": hint or None}
    reply = WidgetReply(id=request_id, ok=error is None, **fields)
    return reply.model_dump(mode="json")


def events_message(events: Iterable[TurnViewEvent], *, replay: bool = False) -> dict[str, Any]:
    """The JSON of a :class:`~zengine_jupyter.protocol.WidgetEvents` batch: its envelope
    around each event's own JSON, which is what the model dumps (a test compares them).
    Building the model would build the union of every event type first: ~0.1 s of a first
    ``%%agent`` turn, before its request. Anything but an event is refused."""
    from pydantic import BaseModel

    dumped: list[dict[str, Any]] = []
    for event in events:
        if not isinstance(event, BaseModel) or not isinstance(getattr(event, "kind", None), str):
            raise TypeError(f"not an engine event or a turn result: {event!r:.80}")
        dumped.append(event.model_dump(mode="json"))
    return {"v": WIRE_VERSION, "kind": "events", "events": dumped, "replay": replay}
