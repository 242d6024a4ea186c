"""Compaction: the model's working set is replaced by a summary that ``model.fast`` writes.

The summary is recorded as a :class:`CompactionRecord`; replay starts the working set there,
so every later request begins with it (``_wellformed`` sends it as the first user message).
Mid-turn, the turn's own request is kept verbatim after the summary, so the model knows what
it is still doing. A rewind to a turn before the record drops it (it lies inside or after
that turn), which restores the full history; one to a later turn keeps it.

The fast model reads the conversation as a plain transcript (tool outputs cut to
:data:`RESULT_CHARS`), cut in the middle when longer than its own window allows. The agent's
memory of file contents goes with the old messages, so it reads files again before editing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.engine._context import CHARS_PER_TOKEN, window_of
from zengine_jupyter.engine._extension import CommandResult
from zengine_jupyter.engine._journal import usage_record
from zengine_jupyter.engine._wellformed import request_messages
from zengine_jupyter.protocol import (
    CompactionRecord,
    ErrorEvent,
    Message,
    MessageRecord,
    ModelRequest,
    Notice,
    TextDelta,
    TextPart,
    ToolResultRecord,
    UsageEvent,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from zengine_jupyter.engine._session import Session
    from zengine_jupyter.llm import ModelClient
    from zengine_jupyter.store import WorkingItem

__all__ = [
    "COMPACT_SYSTEM",
    "LATEST_HEADER",
    "STILL_TOO_LONG_HINT",
    "SUMMARY_HEADER",
    "TurnContext",
    "compact",
    "compact_now",
    "render_transcript",
]

COMPACT_SYSTEM = (
    "You compact a coding agent's conversation so it can go on in a fresh context window. "
    "Write a summary that lets the agent continue without the original messages: the user's "
    "goals and requests (quote exact wording where it matters), decisions made, files read "
    "or changed (paths) and what changed, commands run and their results, errors still "
    "open, and what was being done last and what is left to do. Be specific and dense; "
    "no preamble."
)
SUMMARY_HEADER = (
    "[This conversation was compacted to fit the model's context window. Summary of what "
    "happened so far:]"
)
LATEST_HEADER = "[The user's current request, verbatim (the work on it may be under way):]"
RESULT_CHARS = 2_000
"""A tool result is cut to this many characters in the transcript the summariser reads."""
CALL_CHARS = 600
SUMMARY_TOKENS = 8_000
"""The summary's max_tokens (the client caps it at the model's output limit)."""


def _cut(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + f" [... {len(text) - limit:,} more]"


def _item(item: WorkingItem) -> str | None:
    if isinstance(item, CompactionRecord):
        return f"[earlier summary]\n{item.summary}"
    if isinstance(item, ToolResultRecord):
        label = "tool error" if item.is_error else "tool result"
        return f"[{label} {item.name}]\n{_cut(item.output, RESULT_CHARS)}"
    lines = [f"{item.role.upper()}: {item.text.strip()}"] if item.text.strip() else []
    lines += [f"[tool call {c.name}] {_cut(str(c.input), CALL_CHARS)}" for c in item.tool_calls]
    return "\n".join(lines) or None


def render_transcript(working: Sequence[WorkingItem], budget_chars: int) -> str:
    """The working set as text, at most about ``budget_chars`` (the middle goes first)."""
    parts = [text for item in working if (text := _item(item)) is not None]
    if sum(len(p) for p in parts) <= budget_chars:
        return "\n\n".join(parts)
    head: list[str] = []
    room = budget_chars // 5
    for part in parts:  # the start: what the chat is about
        if len(part) > room:
            break
        head.append(part)
        room -= len(part)
    room = budget_chars - sum(len(p) for p in head)
    tail: list[str] = []
    for part in reversed(parts[len(head) :]):  # the end: where the work is now
        if len(part) > room:
            if not tail and room > 0:  # the newest item alone is too long: its end
                tail.append(part[-room:])
            break
        tail.append(part)
        room -= len(part)
    tail.reverse()
    left_out = len(parts) - len(head) - len(tail)
    return "\n\n".join([*head, f"[... {left_out} messages left out ...]", *tail])


async def _summarise(
    client: ModelClient, transcript: str, on_usage: Callable[[UsageEvent], None]
) -> tuple[str, ErrorEvent | None]:
    prompt = f"{transcript}\n\n---\nSummarise the conversation above as instructed."
    request = ModelRequest(
        system=COMPACT_SYSTEM,
        messages=[Message(role="user", content=[TextPart(text=prompt)])],
        max_tokens=SUMMARY_TOKENS,
    )
    text: list[str] = []
    error: ErrorEvent | None = None
    async for event in client.stream(request):
        if isinstance(event, TextDelta):
            text.append(event.text)
        elif isinstance(event, UsageEvent):
            on_usage(event)
        elif isinstance(event, ErrorEvent):
            error = event
    return "".join(text).strip(), error


def _has_history(working: Sequence[WorkingItem]) -> bool:
    """Whether anything since the last summary is worth summarising: an answer at least (a
    lone request, the start of a chat, is sent as it is)."""
    rest = working[1:] if working and isinstance(working[0], CompactionRecord) else working
    return any(isinstance(item, MessageRecord) and item.role == "assistant" for item in rest)


async def compact(
    session: Session,
    *,
    tokens_before: int,
    reason: str,
    turn_id: str | None = None,
    latest: str | None = None,
    on_usage: Callable[[UsageEvent], None] | None = None,
) -> CompactionRecord | str:
    """Summarise the chat's working set with ``model.fast`` and record it; the record, or
    why nothing was compacted. ``latest``: the running turn's request, kept verbatim.
    ``on_usage``: the turn's usage journal (else a usage record is written here)."""
    working = session.journal.working_set()
    if not _has_history(working):
        return "there is nothing to compact yet"
    client = session.roles.client("fast")
    window = await window_of(client)
    budget = max(4_000, int(window * 0.7) - SUMMARY_TOKENS) * CHARS_PER_TOKEN

    def usage(event: UsageEvent) -> None:
        session.journal.record(usage_record(event))

    summary, error = await _summarise(client, render_transcript(working, budget), on_usage or usage)
    if error is not None or not summary:
        why = error.message if error is not None else "the model gave an empty summary"
        return f"the summary could not be made: {why}"
    text = f"{SUMMARY_HEADER}\n\n{summary}"
    if latest and latest.strip():
        text += f"\n\n{LATEST_HEADER}\n\n{latest}"
    record = CompactionRecord(summary=text, tokens_before=tokens_before)
    after = -(-len(text) // CHARS_PER_TOKEN)
    notice = (
        f"compacted the conversation ({reason}): about {tokens_before:,} tokens before, "
        f"{after:,} in the summary by {session.roles.model('fast') or 'the fast model'}"
    )
    session.journal.record(
        record, Notice(session_id=session.id, turn_id=turn_id, topic="context", text=notice)
    )
    session.ctx.reads.forget()  # the file contents it read are gone from its context
    session.gauge.compacted(after)
    return record


async def compact_now(session: Session, args: str = "") -> CommandResult:
    """``/compact``: summarise the chat now (not during a turn)."""
    async with session.idle("compact"):
        system, tools = session.prepare_request()
        messages = request_messages(session.journal.working_set())
        request = ModelRequest(system=system, messages=messages, tools=tools)
        await session.gauge.measure(session.client)
        tokens, _ = session.gauge.count(request)
        done = await compact(session, tokens_before=tokens, reason="/compact")
    if isinstance(done, str):
        return CommandResult(f"not compacted: {done}")
    return CommandResult(
        f"compacted: about {tokens:,} tokens of conversation are now a summary of "
        f"{-(-len(done.summary) // CHARS_PER_TOKEN):,}; the model starts from it"
    )


STILL_TOO_LONG_HINT = (
    "rewind to an earlier message (/rewind), start a new chat, or choose a model with a "
    "larger context window (/model)"
)


class TurnContext:
    """The turn loop's side of compaction for one turn of a chat."""

    def __init__(self, session: Session, prompt: str, turn_id: str) -> None:
        self._session = session
        self._prompt = prompt
        self._turn_id = turn_id
        self._estimate = 0
        self._failed = False
        """A compaction failed this turn: no other automatic attempt (each would cost a
        request); a context-length error still gets its one."""

    async def fit(
        self,
        request: ModelRequest,
        rebuild: Callable[[], ModelRequest],
        on_usage: Callable[[UsageEvent], None],
    ) -> ModelRequest:
        """``request``, or the one rebuilt after compacting when it reached the threshold."""
        gauge = self._session.gauge
        await gauge.measure(self._session.client)
        tokens, self._estimate = gauge.count(request)
        if self._failed or not gauge.full(tokens):
            return request
        reason = f"{tokens:,} of {gauge.window:,} tokens"
        done = await compact(
            self._session,
            tokens_before=tokens,
            reason=reason,
            turn_id=self._turn_id,
            latest=self._prompt,
            on_usage=on_usage,
        )
        if isinstance(done, str):
            self._failed = True
            self._note(f"the conversation could not be compacted: {done}")
            return request
        request = rebuild()
        tokens, self._estimate = gauge.count(request)
        gauge.compacted(tokens)
        return request

    def observe(self, event: UsageEvent) -> None:
        """The provider's count of the request :meth:`fit` passed last."""
        self._session.gauge.observe(self._estimate, event.usage)

    async def overflow(self, on_usage: Callable[[UsageEvent], None]) -> str | None:
        """The provider found the request too long: compact once (None) or say why not."""
        done = await compact(
            self._session,
            tokens_before=self._estimate,
            reason="the provider said it was too long",
            turn_id=self._turn_id,
            latest=self._prompt,
            on_usage=on_usage,
        )
        return done if isinstance(done, str) else None

    def _note(self, text: str) -> None:
        session = self._session
        session.journal.publish(
            Notice(session_id=session.id, turn_id=self._turn_id, topic="context", text=text)
        )
