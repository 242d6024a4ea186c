"""The ``%%agent`` cell's output: an anywidget that streams one turn and asks for approvals.

It is a :class:`~zengine_jupyter.kernel._commwidget.CommWidget` (anywidget's comm protocol
without importing ipywidgets: the widget stack cost a first turn ~0.1-0.2 s before its
request); the frontend sees the same anywidget model as before.

Messages: the custom widget messages of ``protocol/_widget_wire.py``, built and parsed only
through those models (``_view_messages.py``):

- kernel -> view: :class:`~zengine_jupyter.protocol.WidgetEvents` (batched engine events,
  then a :class:`~zengine_jupyter.protocol.TurnResult`, or an ``EngineError`` and a failed
  result for a failure the kernel caught; a ``replay`` request gets every event so far), and
  one :class:`~zengine_jupyter.protocol.WidgetReply` per request.
- view -> kernel: :data:`~zengine_jupyter.protocol.TurnWidgetRequest` (``replay``,
  ``interrupt``, ``approval_answer``); a malformed one gets a failed reply.

A view may get messages on any thread: the comm only hands them to the kernel's loop.
``sent_note`` (``%%agent --vars``) makes the view show ``prompt``, exactly as sent to the
model, in a collapsed block. The traits are :class:`~zengine_jupyter.protocol.TurnWidgetState`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from weakref import WeakSet

from zengine_jupyter.kernel._commwidget import CommWidget
from zengine_jupyter.kernel._esm import widget_css, widget_esm
from zengine_jupyter.kernel._view_messages import events_message, parse_request, reply_message

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable

    from zengine_jupyter.engine import Subscription
    from zengine_jupyter.protocol import TurnViewEvent

__all__ = ["TRAITS", "TurnWidget", "open_widgets"]

_MAX_KEPT = 20_000
"""Events a widget keeps for views that open later (a reload); older ones are dropped."""
_WIDGET_ID = "zengine_jupyter.kernel._widget.TurnWidget"
"""anywidget's id of the view's code (what ``anywidget.AnyWidget`` derived from the class)."""
TRAITS: dict[str, Any] = {"prompt": "", "session_id": "", "status": "starting",
                          "interactive": True, "sent_note": ""}  # fmt: skip
"""The synced traits and their defaults (:class:`~zengine_jupyter.protocol.TurnWidgetState`).
``sent_note`` is set when ``%%agent --vars`` replaced ``{name}``s: the view shows ``prompt`` as
sent."""
_OPEN: WeakSet[TurnWidget] = WeakSet()


def open_widgets() -> list[TurnWidget]:
    """The turn widgets of this kernel not closed yet (``%unload_ext`` closes every one)."""
    return [w for w in _OPEN if not w.closed]


class TurnWidget:
    """One ``%%agent`` turn as the user sees it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, **traits: Any) -> None:
        unknown = set(traits) - set(TRAITS)
        if unknown:
            raise TypeError(f"unknown turn widget traits: {sorted(unknown)}")
        self._loop = loop
        self._w = CommWidget(esm=widget_esm("turn"), css=widget_css(),
                             state={**TRAITS, **traits}, loop=loop,
                             widget_id=_WIDGET_ID)  # fmt: skip
        self._w.handler = self._handle
        self.kept: list[TurnViewEvent] = []
        self.command = False
        """The cell ran a slash command (no turn): its plain-text summary is the answer."""
        self.handler: Callable[[Any], str | None] | None = None
        """Set by the controller: answers an ``interrupt`` or ``approval_answer`` on the loop
        (None: reply ok, else the error to show)."""
        _OPEN.add(self)

    # ------------------------------------------------------------ traits
    @property
    def prompt(self) -> str:
        return str(self._w.state["prompt"])

    @property
    def session_id(self) -> str:
        return str(self._w.state["session_id"])

    @session_id.setter
    def session_id(self, value: str) -> None:
        self._w.set_state(session_id=value)

    @property
    def status(self) -> str:
        return str(self._w.state["status"])

    @status.setter
    def status(self, value: str) -> None:
        self._w.set_state(status=value)

    @property
    def interactive(self) -> bool:
        return bool(self._w.state["interactive"])

    @property
    def model_id(self) -> str:
        return self._w.model_id

    @property
    def closed(self) -> bool:
        return self._w.closed

    def close(self) -> None:
        self._w.close()

    def mimebundle(self) -> dict[str, Any]:
        """What ``display`` shows: the view, and this text where widgets do not render."""
        return self._w.mimebundle(repr(self))

    def __repr__(self) -> str:
        """The plain-text form saved with a notebook's outputs (nbclient, nbconvert), not the
        default ``<TurnWidget object at 0x…>``."""
        first = (self.prompt.strip().splitlines() or [""])[0]
        return f"zengine turn: {first[:77] + '…' if len(first) > 78 else first}"

    # ------------------------------------------------------------ kernel -> view
    def emit(self, events: list[TurnViewEvent]) -> None:
        """Show ``events`` in every view, and keep them for later views."""
        if not events:
            return
        self.kept.extend(events)
        if len(self.kept) > _MAX_KEPT:
            del self.kept[: len(self.kept) - _MAX_KEPT]
        self._w.send(events_message(events))

    async def pump(self, sub: Subscription) -> None:
        """Forward a subscription's events until it closes, batching what is already queued."""
        while (event := await sub.get()) is not None:
            batch: list[TurnViewEvent] = [event]
            while sub.pending():
                more = await sub.get()
                if more is None:
                    self.emit(batch)
                    return
                batch.append(more)
            self.emit(batch)

    # ------------------------------------------------------------ view -> kernel
    def _handle(self, content: dict[str, Any]) -> None:
        """A view's request, on the kernel's loop (the comm hands it over)."""
        request, refused = parse_request("turn", content)
        if refused is not None:
            reply = refused
        elif request.kind == "replay":
            self._w.send(events_message(self.kept, replay=True))
            reply = reply_message(request.id)
        else:
            try:
                error = self.handler(request) if self.handler else None
            except Exception as exc:  # a bad message must not break the kernel
                error = f"{type(exc).__name__}: {exc}"
            reply = reply_message(request.id, error=error)
        self._w.send(reply)
