"""Chat titles: ``model.fast`` names a chat after its first completed turn; ``/title`` renames.

The title is asked for in a background task when a turn ends, so the turn's end never waits
for it; any failure (the model errors, an empty or unusable answer, the chat closing) is
quiet and leaves the chat as it was (meta.json's default: the first message). A title is
a :class:`TitleRecord` (the last one wins on replay), then meta.json is rewritten and a
``Notice`` with topic ``title`` (the text is the title) tells open views.

Only a live provider client the chat built is asked (a test's fake or a cassette is one
scripted sequence of answers that a background request would disturb).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from zengine_jupyter.engine._extension import CommandResult
from zengine_jupyter.engine._journal import usage_record
from zengine_jupyter.protocol import (
    ErrorEvent,
    Message,
    MessageRecord,
    ModelRequest,
    Notice,
    TextDelta,
    TextPart,
    TitleRecord,
    UsageEvent,
)

if TYPE_CHECKING:
    from zengine_jupyter.engine._session import Session

__all__ = ["TITLE_CHARS", "TITLE_SYSTEM", "Titles", "clean_title", "rename"]

_log = logging.getLogger(__name__)

TITLE_SYSTEM = (
    "You name chats between a user and a coding agent. Answer with a title of at most six "
    "words for the chat below: what the user wants done, in the user's language, with no "
    "quotes, no final full stop and nothing else."
)
TITLE_CHARS = 60
"""Longer titles are cut (with an ellipsis)."""
_EXCERPT = 2_000
CLOSE_WAIT_S = 3.0
"""How long closing the chat waits for a title still being asked for."""


def clean_title(text: str) -> str | None:
    """The first line of ``text`` without quotes, markdown marks or a final full stop, at most
    :data:`TITLE_CHARS`; None when nothing is left."""
    line = next((ln.strip() for ln in text.strip().splitlines() if ln.strip()), "")
    line = line.removeprefix("Title:").removeprefix("title:").strip()
    line = line.strip("#*_`\"' \u201c\u201d\u2018\u2019").rstrip(".").strip()
    line = " ".join(line.split())
    if not line:
        return None
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


def _write(session: Session, title: str) -> None:
    session.journal.record(
        TitleRecord(title=title), Notice(session_id=session.id, topic="title", text=title)
    )
    session.writer.write_meta()


async def rename(session: Session, args: str) -> CommandResult:
    """``/title TEXT``: rename the chat; ``/title`` alone shows the title."""
    title = clean_title(args)
    if title is None:
        current = session.writer.state().title
        return CommandResult(f"title: {current or 'none yet'} (rename with /title TEXT)")
    session.titles.cancel()  # the user's title wins over one still being made
    _write(session, title)
    return CommandResult(f"title: {title}")


class Titles:
    """The chat's title task (at most one attempt per opened chat)."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self._task: asyncio.Task[None] | None = None
        self._tried = False

    def after_turn(self, completed: bool) -> None:
        """A turn ended: start naming the chat if it has no title yet."""
        session = self._session
        if self._tried or not completed or not session.roles.live:
            return
        state = session.writer.state()
        if state.title is not None:
            return
        prompt = next((r.text for r in state.transcript
                       if isinstance(r, MessageRecord) and r.role == "user" and r.text.strip()),
                      None)  # fmt: skip
        if prompt is None:
            return
        answer = next((r.text for r in state.transcript
                       if isinstance(r, MessageRecord) and r.role == "assistant" and r.text),
                      "")  # fmt: skip
        self._tried = True
        self._task = asyncio.create_task(self._run(prompt, answer), name="zengine-title")

    async def _run(self, prompt: str, answer: str) -> None:
        try:
            title = await self._ask(prompt, answer)
            if title is not None and self._session.writer.state().title is None:
                _write(self._session, title)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never the user's problem: the default title stays
            _log.debug("chat title failed: %s", type(exc).__name__)

    async def _ask(self, prompt: str, answer: str) -> str | None:
        session = self._session
        text = f"User:\n{prompt[:_EXCERPT]}"
        if answer.strip():
            text += f"\n\nAgent:\n{answer[:_EXCERPT]}"
        request = ModelRequest(
            system=TITLE_SYSTEM,
            messages=[Message(role="user", content=[TextPart(text=text)])],
            max_tokens=64,
        )
        parts: list[str] = []
        async for event in session.roles.client("fast").stream(request):
            if isinstance(event, TextDelta):
                parts.append(event.text)
            elif isinstance(event, UsageEvent):
                session.journal.record(usage_record(event))
            elif isinstance(event, ErrorEvent):
                _log.debug("chat title: %s", event.message)
                return None
        return clean_title("".join(parts))

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self._tried = True

    async def aclose(self) -> None:
        """Give a title being asked for a moment to land, then stop it."""
        task = self._task
        if task is None or task.done():
            return
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(task), CLOSE_WAIT_S)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
