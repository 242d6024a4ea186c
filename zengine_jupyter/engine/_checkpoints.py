"""The checkpoints extension: ``/rewind`` and checkpoint retention for a chat.

``/rewind`` lists the messages a chat can go back to; ``/rewind N [code|conversation|both]``
rewinds (both by default; see ``_rewind.py``). Retention (``[checkpoints]`` settings) runs in
the background, never on the snapshot path: when the chat opens (age and size) and at the end
of each turn that took a snapshot (size), with a notice that names the size when the budget
was hit.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from zengine_jupyter.engine._extension import CommandResult, SessionExtension
from zengine_jupyter.host.checkpoint import (
    Retention,
    collect_garbage,
    format_size,
    needs_collection,
)
from zengine_jupyter.protocol import (
    CheckpointError,
    CheckpointTaken,
    Notice,
    TurnEnded,
    ZengineError,
)

if TYPE_CHECKING:
    from zengine_jupyter.config import CheckpointsSettings
    from zengine_jupyter.engine._bus import Subscription
    from zengine_jupyter.engine._session import Session
    from zengine_jupyter.protocol import CheckpointGc

__all__ = ["CheckpointsExtension", "gc_notice", "retention_of"]

_WHAT = {"code": (True, False), "conversation": (False, True), "both": (True, True)}


def retention_of(settings: CheckpointsSettings) -> Retention:
    return Retention.from_settings(settings.max_age_days, settings.max_size_mb)


def gc_notice(report: CheckpointGc) -> str | None:
    """What retention did, in one or two lines; None when it removed nothing and all fits."""
    kept = f"{report.kept} kept, {format_size(report.size_after)} now"
    budget = f"the {format_size(report.budget)} budget (checkpoints.max_size_mb)"
    if report.still_over_budget:
        return (
            f"checkpoints of {report.project} take {format_size(report.size_after)}, over "
            f"{budget}, and the newest snapshot alone needs that much: raise the budget or add "
            "big folders to .gitignore" + (f" (removed {report.removed})" if report.removed else "")
        )
    if report.over_budget:
        return (
            f"checkpoints of {report.project} took {format_size(report.size_before)}, over "
            f"{budget}: removed the {report.removed} oldest; {kept}"
        )
    if report.removed:
        return (
            f"removed {report.removed} checkpoints of {report.project} older than "
            f"{report.max_age_days} days (checkpoints.max_age_days); {kept}"
        )
    return None


async def _rewind_command(session: Session, args: str) -> CommandResult:
    from zengine_jupyter.engine._rewind import (
        describe_other_chats,
        describe_rewind,
        rewind,
        rewind_points,
    )

    words = args.split()
    if not words:
        points = await rewind_points(session)
        if not points:
            return CommandResult("nothing to rewind to yet")
        rows = []
        for p in points:
            text = " ".join(p.prompt.split())
            files = f"files: {p.checkpoint_id[:12]}" if p.checkpoint_id else "no file changes"
            rows.append(f"{p.number:>3}. {text[:70]}  [{files}]")
            rows += [f"     ! {line}" for line in describe_other_chats(p.other_chats)]
        usage = "/rewind N [code|conversation|both]: back to before message N (default both)"
        return CommandResult("\n".join([*rows, usage]))
    what = words[1] if len(words) > 1 else "both"
    if what not in _WHAT:
        return CommandResult(f"unknown {what!r}: choose code, conversation or both")
    code, conversation = _WHAT[what]
    try:
        result = await rewind(session, words[0], code=code, conversation=conversation)
    except ZengineError as exc:
        return CommandResult(f"rewind refused: {exc}" + (f" ({exc.hint})" if exc.hint else ""))
    return CommandResult(describe_rewind(result))


class CheckpointsExtension(SessionExtension):
    """Registers ``/rewind`` and keeps the project's checkpoints within their retention."""

    name = "checkpoints"

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None
        self._sub: Subscription | None = None
        self._warned = False

    async def start(self, session: Session) -> None:
        session.commands["rewind"] = _rewind_command
        if session.shadow is not None:
            self._sub = session.bus.subscribe((CheckpointTaken, TurnEnded))
            self._task = asyncio.create_task(
                self._watch(session, self._sub), name=f"zengine-retention-{session.id}"
            )

    async def _watch(self, session: Session, sub: Subscription) -> None:
        await self._apply(session, check_age=True)
        snapshotted = False
        async for event in sub:
            # a collection holds the repository lock: run it between turns, not during one
            if isinstance(event, CheckpointTaken):
                snapshotted = True
            elif isinstance(event, TurnEnded) and snapshotted:
                snapshotted = False
                await self._apply(session, check_age=False)

    async def _apply(self, session: Session, *, check_age: bool) -> None:
        shadow = session.shadow
        if shadow is None:
            return
        retention = retention_of(session.settings.settings.checkpoints)
        try:
            if await needs_collection(shadow, retention, check_age=check_age) is None:
                return
            report = await collect_garbage(shadow, retention)
        except CheckpointError as exc:
            text = f"checkpoint retention failed: {exc}"
        else:
            notice = gc_notice(report)
            if notice is None or (report.still_over_budget and self._warned):
                return
            self._warned = self._warned or report.still_over_budget
            text = notice
        session.bus.publish(Notice(session_id=session.id, topic="checkpoints", text=text))

    async def aclose(self) -> None:
        """Stop watching; a collection in progress is let finish (it holds the repo lock)."""
        if self._sub is not None:
            self._sub.close()
            self._sub = None
        if self._task is not None:
            task, self._task = self._task, None
            await asyncio.gather(task, return_exceptions=True)
