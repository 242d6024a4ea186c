"""A turn started from the panel: no widget, and the reply waits only for the turn to start.

The turn is a task owned by the :class:`~zengine_jupyter.kernel._controller.KernelController`
(so ``%unload_ext`` cancels it like an ``%%agent`` turn); the panel follows it through its
comm's subscription to the chat.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zengine_jupyter.engine import Subscription, TurnOutcome
    from zengine_jupyter.kernel._controller import KernelController, _Chat

__all__ = ["begin"]


async def begin(
    controller: KernelController, chat: _Chat, text: str
) -> tuple[str | None, TurnOutcome | None]:
    """Start a turn (or a slash command) in ``chat`` with no widget.

    Returns ``(turn_id, None)`` as soon as the turn has started (it goes on as a task owned by
    ``controller``), or ``(None, outcome)`` when it ended without starting one (a slash
    command that is not a prompt). What the engine raises before the turn starts is raised
    here; after that it is published to the chat's views as an ``error`` event.
    """
    session = chat.session
    if session.busy:
        from zengine_jupyter.engine import TurnInProgressError

        raise TurnInProgressError(
            f"a turn is already running in chat {session.id}",
            hint="wait for it to finish, or interrupt it",
        )
    sub = session.subscribe()
    started: list[str] = []
    task = controller.spawn(_headless(controller, chat, text), "zengine-panel-turn")
    task.add_done_callback(lambda done: _report_failure(chat, started, done))
    waiter = asyncio.ensure_future(_turn_started(sub))
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        sub.close()  # the waiter ends with it
    turn_id = await waiter
    if turn_id is None:
        return None, await task
    started.append(turn_id)
    return turn_id, None


async def _headless(controller: KernelController, chat: _Chat, text: str) -> TurnOutcome:
    chat.approvals.policy = None  # ask the views
    try:
        return await chat.session.submit(text)
    finally:
        controller._turn_over(chat)


async def _turn_started(sub: Subscription) -> str | None:
    """The id of the next turn that starts on ``sub`` (None: the subscription closed)."""
    while (event := await sub.get()) is not None:
        if event.kind == "turn_started":
            return event.turn_id
    return None


def _report_failure(chat: _Chat, started: list[str], task: asyncio.Task[TurnOutcome]) -> None:
    """A panel turn raised after it started: every view of the chat gets an error event
    (before it started, :func:`begin` raised it to the request instead)."""
    if task.cancelled() or (exc := task.exception()) is None or not started:
        return
    from zengine_jupyter.protocol import EngineError

    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    hint = getattr(exc, "hint", None)
    chat.session.bus.publish(EngineError(session_id=chat.session.id, turn_id=started[0],
                                         message=message, hint=hint))  # fmt: skip
