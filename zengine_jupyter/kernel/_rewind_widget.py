"""``%agent /rewind``: the chat's user messages with their checkpoints, and buttons to restore
the code, the conversation or both (``engine/_rewind.py`` does the work).

An anywidget (``rewind_widget.js``; imported on first use only). Messages: the custom widget
messages of ``protocol/_widget_wire.py``, built and parsed only through those models
(``_view_messages.py``):

- view -> kernel: :data:`~zengine_jupyter.protocol.RewindWidgetRequest`: ``refresh``;
  ``rewind`` with ``to`` (a turn id or number) and ``what`` (code, conversation or both).
- kernel -> view: one :class:`~zengine_jupyter.protocol.WidgetReply` per request (a malformed
  one gets a failed reply), with ``points`` (:class:`~zengine_jupyter.protocol.RewindPointView`:
  a ``RewindPoint`` plus ``warnings``, the other chats' edits a code rewind to it would
  revert too) and, after a rewind, ``result`` (:class:`~zengine_jupyter.protocol.RewindOutcome`:
  the ``RewindResult`` plus ``what``, ``text``, the plain-words description, and ``warnings``,
  the other chats' edits it reverted).

The same values are traits (:class:`~zengine_jupyter.protocol.RewindWidgetState`: ``points``,
``result``, ``busy``, ``error``) so a view opened later shows them. Messages may arrive on a
subshell thread: they are handed to the kernel's loop.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets

from zengine_jupyter.kernel._esm import widget_css, widget_esm
from zengine_jupyter.kernel._view_messages import parse_request, reply_message
from zengine_jupyter.protocol import RewindOutcome, RewindPointView

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from zengine_jupyter.engine import Session
    from zengine_jupyter.protocol import RewindScope

__all__ = ["RewindWidget"]

_WHAT = {"code": (True, False), "conversation": (False, True), "both": (True, True)}


class RewindWidget(anywidget.AnyWidget):
    """One chat's rewind points and the outcome of the last rewind."""

    _esm = widget_esm("rewind")
    _css = widget_css()
    session_id = traitlets.Unicode("").tag(sync=True)
    points: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    result = traitlets.Dict(allow_none=True, default_value=None).tag(sync=True)
    busy = traitlets.Unicode("loading…").tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)

    def __repr__(self) -> str:
        """The plain-text form saved with a notebook's outputs."""
        return "zengine rewind: `%agent /rewind N [code|conversation|both]` works without clicks"

    def __init__(self, loop: asyncio.AbstractEventLoop, session: Awaitable[Session]) -> None:
        super().__init__()
        self._loop = loop
        self._session: asyncio.Task[Session] = loop.create_task(
            _resolve(session), name="zengine-rewind-open"
        )
        self.tasks: set[asyncio.Task[Any]] = {self._session}
        self._spawn(_quiet(self._refresh()))  # a failure shows in the ``error`` trait
        self.on_msg(self._on_msg)

    # ------------------------------------------------------------ view -> kernel
    def _on_msg(self, _widget: object, content: Any, _buffers: object) -> None:
        """May run on a subshell thread: only hand the message to the kernel's loop."""
        if isinstance(content, dict) and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._handle, content)

    def _handle(self, content: dict[str, Any]) -> None:
        request, refused = parse_request("rewind", content)
        if refused is not None:
            self._post(refused)
        elif request.kind == "refresh":
            self._spawn(self._answer(request.id, self._refresh()))
        else:
            self._spawn(self._answer(request.id, self._rewind(request.to, request.what)))

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = self._loop.create_task(_resolve(work), name="zengine-rewind")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # ------------------------------------------------------------ on the loop
    async def _refresh(self) -> dict[str, Any]:
        from zengine_jupyter.engine import describe_other_chats, rewind_points

        try:
            session = await self._session
            self.session_id = session.id
            points = [
                RewindPointView.model_validate(
                    {**p.model_dump(), "warnings": describe_other_chats(p.other_chats)}
                )
                for p in await rewind_points(session)
            ]
        except Exception as exc:
            self.busy, self.error = "", str(exc) or type(exc).__name__
            raise
        self.points, self.busy = [p.model_dump(mode="json") for p in points], ""
        return {"points": points}

    async def _rewind(self, to: str, what: RewindScope) -> dict[str, Any]:
        from zengine_jupyter.engine import describe_other_chats, describe_rewind, rewind

        session = await self._session
        code, conversation = _WHAT[what]
        label = "code and conversation" if what == "both" else what
        self.busy, self.error = f"rewinding the {label}…", ""
        try:
            done = await rewind(session, to, code=code, conversation=conversation)
        except Exception as exc:
            self.busy, self.error = "", str(exc) or type(exc).__name__
            raise
        warnings = describe_other_chats(done.other_chats, done=True)
        result = RewindOutcome.model_validate({**done.model_dump(), "what": what,
                                               "text": describe_rewind(done),
                                               "warnings": warnings})  # fmt: skip
        self.result = result.model_dump(mode="json")
        refreshed = await self._refresh()
        return {"result": result, "points": refreshed["points"]}

    async def _answer(self, request_id: str, work: Awaitable[dict[str, Any]]) -> None:
        try:
            fields = await work
        except Exception as exc:  # shown in the widget, never a traceback
            message = str(exc) or type(exc).__name__
            self._post(reply_message(request_id, error=message, hint=getattr(exc, "hint", None)))
            return
        self._post(reply_message(request_id, **fields))

    def _post(self, message: dict[str, Any]) -> None:
        if self.comm is not None:
            self.send(message)

    def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        super().close()


async def _resolve(work: Awaitable[Any]) -> Any:
    return await work


async def _quiet(work: Awaitable[Any]) -> None:
    try:
        await work
    except asyncio.CancelledError:
        raise
    except Exception:  # already shown in the widget's ``error``
        return
