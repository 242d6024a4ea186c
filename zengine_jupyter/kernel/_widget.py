"""The ``%%agent`` cell's output: an anywidget that streams one turn and asks for approvals.

Messages: the custom widget messages of ``protocol/_widget_wire.py``, built and parsed only
through those models (``_view_messages.py``):

- kernel -> view: :class:`~zengine_jupyter.protocol.WidgetEvents` (batched engine events,
  then a :class:`~zengine_jupyter.protocol.TurnResult`, or an ``EngineError`` and a failed
  result for a failure the kernel caught; a ``replay`` request gets every event so far), and
  one :class:`~zengine_jupyter.protocol.WidgetReply` per request.
- view -> kernel: :data:`~zengine_jupyter.protocol.TurnWidgetRequest` (``replay``,
  ``interrupt``, ``approval_answer``); a malformed one gets a failed reply.

A view may get messages on any thread: ``on_msg`` only hands the message to the kernel's loop.
``sent_note`` (``%%agent --vars``) makes the view show ``prompt``, exactly as sent to the
model, in a collapsed block. The traits are :class:`~zengine_jupyter.protocol.TurnWidgetState`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anywidget
import traitlets

from zengine_jupyter.kernel._esm import widget_css, widget_esm
from zengine_jupyter.kernel._view_messages import events_message, parse_request, reply_message

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable

    from zengine_jupyter.engine import Subscription
    from zengine_jupyter.protocol import TurnViewEvent

__all__ = ["TurnWidget"]

_MAX_KEPT = 20_000
"""Events a widget keeps for views that open later (a reload); older ones are dropped."""


class TurnWidget(anywidget.AnyWidget):
    """One ``%%agent`` turn as the user sees it."""

    _esm = widget_esm("turn")
    _css = widget_css()
    prompt = traitlets.Unicode("").tag(sync=True)
    session_id = traitlets.Unicode("").tag(sync=True)
    status = traitlets.Unicode("starting").tag(sync=True)
    interactive = traitlets.Bool(True).tag(sync=True)
    sent_note = traitlets.Unicode("").tag(sync=True)
    """Set when ``%%agent --vars`` replaced ``{name}``s: the view shows ``prompt`` as sent."""

    def __init__(self, loop: asyncio.AbstractEventLoop, **traits: Any) -> None:
        super().__init__(**traits)
        self._loop = loop
        self.kept: list[TurnViewEvent] = []
        self.command = False
        """The cell ran a slash command (no turn): its plain-text summary is the answer."""
        self.handler: Callable[[Any], str | None] | None = None
        """Set by the controller: answers an ``interrupt`` or ``approval_answer`` on the loop
        (None: reply ok, else the error to show)."""
        self.on_msg(self._on_msg)

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
        if self.comm is not None:
            self.send(events_message(events))

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
    def _on_msg(self, _widget: object, content: Any, _buffers: object) -> None:
        """May run on a subshell thread: only hand the message to the kernel's loop."""
        if isinstance(content, dict) and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._handle, content)

    def _handle(self, content: dict[str, Any]) -> None:
        request, refused = parse_request("turn", content)
        if refused is not None:
            reply = refused
        elif request.kind == "replay":
            if self.comm is not None:
                self.send(events_message(self.kept, replay=True))
            reply = reply_message(request.id)
        else:
            try:
                error = self.handler(request) if self.handler else None
            except Exception as exc:  # a bad message must not break the kernel
                error = f"{type(exc).__name__}: {exc}"
            reply = reply_message(request.id, error=error)
        if self.comm is not None:
            self.send(reply)
