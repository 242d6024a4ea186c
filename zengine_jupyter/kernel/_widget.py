"""The ``%%agent`` cell's output: an anywidget that streams one turn and asks for approvals.

Messages (custom widget messages, versioned and tagged by ``kind``; see ``turn_widget.js``):

- kernel -> view: ``{"v": 1, "kind": "events", "events": [EngineEvent JSON...]}`` (batched;
  a ``replay`` request gets every event so far), ``{"v": 1, "kind": "reply", "id", "ok",
  "error"?}`` for each request.
- view -> kernel: ``{"v": 1, "kind": "replay" | "interrupt" | "approval_answer", "id", ...}``;
  an ``approval_answer`` carries ``request_id`` and ``decision`` (an ``ApprovalDecision``).

Besides the engine's events, the kernel adds ``{"kind": "turn_result", "status", "text",
"changed", "reason"}`` when the turn is over and ``{"kind": "error", "message", "hint"}`` for a
failure it caught. A view may get messages on any thread: ``on_msg`` only hands the message to
the kernel's loop. ``sent_note`` (``%%agent --vars``) makes the view show ``prompt``, exactly as
sent to the model, in a collapsed block.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets

from zengine_jupyter.kernel._esm import widget_esm

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable

    from zengine_jupyter.engine import Subscription

__all__ = ["WIDGET_WIRE_VERSION", "TurnWidget"]

WIDGET_WIRE_VERSION = 1
_HERE = Path(__file__).parent
_MAX_KEPT = 20_000
"""Events a widget keeps for views that open later (a reload); older ones are dropped."""


class TurnWidget(anywidget.AnyWidget):
    """One ``%%agent`` turn as the user sees it."""

    _esm = widget_esm("turn_widget.js")
    _css = _HERE / "turn_widget.css"
    prompt = traitlets.Unicode("").tag(sync=True)
    session_id = traitlets.Unicode("").tag(sync=True)
    status = traitlets.Unicode("starting").tag(sync=True)
    interactive = traitlets.Bool(True).tag(sync=True)
    sent_note = traitlets.Unicode("").tag(sync=True)
    """Set when ``%%agent --vars`` replaced ``{name}``s: the view shows ``prompt`` as sent."""

    def __init__(self, loop: asyncio.AbstractEventLoop, **traits: Any) -> None:
        super().__init__(**traits)
        self._loop = loop
        self.kept: list[dict[str, Any]] = []
        self.handler: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
        """Set by the controller: answers a request on the loop (None: reply ok)."""
        self.on_msg(self._on_msg)

    def __repr__(self) -> str:
        """The plain-text form saved with a notebook's outputs (nbclient, nbconvert), not the
        default ``<TurnWidget object at 0x…>``."""
        first = (self.prompt.strip().splitlines() or [""])[0]
        return f"zengine turn: {first[:77] + '…' if len(first) > 78 else first}"

    # ------------------------------------------------------------ kernel -> view
    def emit(self, events: list[dict[str, Any]]) -> None:
        """Show ``events`` (JSON dicts) in every view, and keep them for later views."""
        if not events:
            return
        self.kept.extend(events)
        if len(self.kept) > _MAX_KEPT:
            del self.kept[: len(self.kept) - _MAX_KEPT]
        if self.comm is not None:
            self.send({"v": WIDGET_WIRE_VERSION, "kind": "events", "events": events})

    async def pump(self, sub: Subscription) -> None:
        """Forward a subscription's events until it closes, batching what is already queued."""
        while (event := await sub.get()) is not None:
            batch = [event.model_dump(mode="json")]
            while sub.pending():
                more = await sub.get()
                if more is None:
                    self.emit(batch)
                    return
                batch.append(more.model_dump(mode="json"))
            self.emit(batch)

    # ------------------------------------------------------------ view -> kernel
    def _on_msg(self, _widget: object, content: Any, _buffers: object) -> None:
        """May run on a subshell thread: only hand the message to the kernel's loop."""
        if isinstance(content, dict) and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._handle, content)

    def _handle(self, content: dict[str, Any]) -> None:
        request_id = content.get("id")
        reply: dict[str, Any] = {"v": WIDGET_WIRE_VERSION, "kind": "reply", "id": request_id}
        if content.get("v") != WIDGET_WIRE_VERSION:
            reply |= {"ok": False, "error": f"widget message version {content.get('v')!r} "
                      f"is not {WIDGET_WIRE_VERSION}: reload the page"}  # fmt: skip
        elif content.get("kind") == "replay":
            self.send({"v": WIDGET_WIRE_VERSION, "kind": "events", "events": self.kept,
                       "replay": True})  # fmt: skip
            reply["ok"] = True
        else:
            try:
                error = self.handler(content) if self.handler else None
            except Exception as exc:  # a bad message must not break the kernel
                error = {"error": f"{type(exc).__name__}: {exc}"}
            reply |= {"ok": error is None, **(error or {})}
        if self.comm is not None:
            self.send(reply)
