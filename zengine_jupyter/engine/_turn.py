"""The turn loop: stream the model, run its tool calls, feed results back, until it stops.

Records are journaled before their events; an interrupt (the turn task cancelled) answers
every call left open with "interrupted" and closes the turn as Interrupted.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zengine_jupyter.engine._calls import CallEnv, run_call, summarise
from zengine_jupyter.engine._compaction import STILL_TOO_LONG_HINT
from zengine_jupyter.engine._journal import usage_record
from zengine_jupyter.engine._stream import Answer, read_answer
from zengine_jupyter.engine._wellformed import INTERRUPTED, request_messages
from zengine_jupyter.protocol import (
    CheckpointRecord,
    CheckpointTaken,
    CostUpdated,
    EngineError,
    MessageRecord,
    ModelRequest,
    Notice,
    RecordedToolCall,
    ToolCallFinished,
    ToolCallProposed,
    ToolResultRecord,
    TurnEnded,
    TurnEndRecord,
    TurnStarted,
    TurnStartRecord,
)

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence
    from pathlib import Path

    from zengine_jupyter.engine._compaction import TurnContext
    from zengine_jupyter.engine._journal import Journaling
    from zengine_jupyter.host.checkpoint import ShadowRepository
    from zengine_jupyter.llm import CostMeter, ModelClient
    from zengine_jupyter.protocol import (
        ErrorEvent,
        ImagePart,
        Message,
        ToolSpec,
        TurnStatus,
        UsageEvent,
    )

__all__ = ["MAX_STEPS", "TurnOutcome", "TurnRunner"]

MAX_STEPS = 60
"""Model responses in one turn before it stops with a message (a runaway-loop guard)."""


@dataclass
class TurnOutcome:
    turn_id: str
    status: TurnStatus
    text: str = ""
    """The model's last answer text."""
    reason: str | None = None
    changed: list[Path] = field(default_factory=list)


@dataclass
class TurnRunner:
    """Runs one turn for a session (a fresh runner per turn)."""

    journal: Journaling
    client: ModelClient
    env: CallEnv
    prepare: Callable[[], tuple[str, list[ToolSpec]]]
    """The system prompt and tool definitions for the next request (they may change)."""
    meter: CostMeter
    shadow: ShadowRepository | None = None
    at_stop: Callable[[TurnOutcome], Awaitable[str | None]] | None = None
    """Asked when the model ends its turn: text to send back to it (it goes on), or None."""
    context: TurnContext | None = None
    """Counts each request against the window and compacts (the chat's own turns; None for a
    subagent, whose context-length error fails its run)."""
    before_first: Callable[[], Awaitable[None]] | None = None
    """Awaited once, after the turn's start is journaled and before its first request."""
    before_tools: Callable[[], Awaitable[None]] | None = None
    """Awaited once, after the checkpoint and before the turn's first tool call runs."""
    _open_calls: list[RecordedToolCall] = field(default_factory=list)
    _partial: Answer | None = None
    _turn_costs: list[float | None] = field(default_factory=list)

    @property
    def sid(self) -> str:
        return self.env.session_id

    @property
    def tid(self) -> str:
        return self.env.turn_id

    async def run(self, prompt: str, images: Sequence[ImagePart] = ()) -> TurnOutcome:
        """The turn for ``prompt``; ``images`` (attached by the user) are kept by hash in the
        chat's artifacts and sent after the text."""
        j = self.journal
        ctx = self.env.ctx
        refs = tuple([await ctx.images.save(ctx.artifacts, part) for part in images])
        j.record(
            TurnStartRecord(turn_id=self.tid),
            TurnStarted(session_id=self.sid, turn_id=self.tid, prompt=prompt),
        )
        j.record(MessageRecord(role="user", text=prompt, images=refs))
        outcome = TurnOutcome(self.tid, "completed")
        try:
            if self.before_first is not None:
                await self.before_first()
            await self._loop(outcome)
        except asyncio.CancelledError:
            self._close_interrupted()
            raise
        except Exception as exc:  # a bug below must still close the turn in the log
            self._close_open_calls(f"failed: {type(exc).__name__}")
            self._end("failed", f"internal error: {exc}")
            raise
        return outcome

    async def _loop(self, outcome: TurnOutcome) -> None:
        checkpointed = False
        overflowed = False
        for _step in range(MAX_STEPS):
            answer = await self._ask_model()
            if answer.error is not None and not (answer.full_text or answer.calls):
                if answer.error.kind == "context_length" and self.context is not None:
                    if not overflowed:  # compact once and ask again
                        overflowed = True
                        why = await self.context.overflow(self._usage)
                        if why is None:
                            continue
                        answer.error = _too_long(answer.error, f"compacting failed: {why}")
                    else:
                        answer.error = _too_long(answer.error, "even after compacting it")
                self._fail(outcome, answer)
                return
            overflowed = False
            self._partial = None
            self.journal.record(
                MessageRecord(role="assistant", text=answer.full_text,
                              thinking=tuple(answer.thinking), tool_calls=tuple(answer.calls))
            )  # fmt: skip
            outcome.text = answer.full_text
            if answer.error is not None:  # text had streamed: it stays, the error is final
                self._fail(outcome, answer)
                return
            if not answer.calls:
                more = await self.at_stop(outcome) if self.at_stop is not None else None
                if more:
                    self.journal.record(MessageRecord(role="user", text=more))
                    continue
                self._end("completed", None)
                return
            self._open_calls = list(answer.calls)
            for call in answer.calls:
                self._propose(call)
            for call in answer.calls:
                if not checkpointed:
                    checkpointed = True
                    await self._checkpoint()
                    if self.before_tools is not None:
                        await self.before_tools()
                _, output = await run_call(self.env, call, answer.bad_calls.get(call.id))
                self._open_calls.remove(call)
                if output is not None:
                    outcome.changed.extend(output.changed_paths)
        outcome.status, outcome.reason = "failed", f"stopped after {MAX_STEPS} model responses"
        self._end("failed", outcome.reason)

    def _propose(self, call: RecordedToolCall) -> None:
        self.journal.publish(
            ToolCallProposed(
                session_id=self.sid,
                turn_id=self.tid,
                call_id=call.id,
                tool=call.name,
                arguments=dict(call.input),
                summary=summarise(call.name, call.input),
            )
        )

    def _request(self) -> ModelRequest:
        system, tools = self.prepare()
        return ModelRequest(system=system, messages=self._messages(), tools=tools)

    async def _ask_model(self) -> Answer:
        ctx = self.env.ctx
        await ctx.images.preload(ctx.artifacts, self.journal.working_set())
        request = self._request()
        on_usage = self._usage
        if self.context is not None:
            request = await self.context.fit(request, self._request, self._usage)
            context = self.context

            def on_usage(event: UsageEvent) -> None:
                context.observe(event)
                self._usage(event)

        self._partial = Answer()
        return await read_answer(
            self.client.stream(request), self.journal.publish, self.sid, self.tid, on_usage
        )

    def _messages(self) -> list[Message]:
        return request_messages(self.journal.working_set(), self.env.ctx.images.part)

    def _usage(self, event: UsageEvent) -> None:
        self._turn_costs.append(event.cost_usd)
        turn_usd = None if None in self._turn_costs else sum(c or 0.0 for c in self._turn_costs)
        session_usd = (
            None if self.meter.unknown and not self.meter.total_usd else (self.meter.total_usd)
        )
        self.journal.record(
            usage_record(event),
            CostUpdated(session_id=self.sid, turn_id=self.tid, turn_usd=turn_usd,
                        session_usd=session_usd),
        )  # fmt: skip

    async def _checkpoint(self) -> None:
        if self.shadow is None:
            return
        from zengine_jupyter.protocol import CheckpointsOff

        info = await self.shadow.snapshot(f"before turn {self.tid}")
        if isinstance(info, CheckpointsOff):
            self.journal.publish(Notice(session_id=self.sid, turn_id=self.tid,
                                        topic="checkpoints", text=info.reason))  # fmt: skip
            return
        self.journal.record(
            CheckpointRecord(checkpoint_id=info.id, turn_id=self.tid, commit=info.id),
            CheckpointTaken(session_id=self.sid, turn_id=self.tid, checkpoint=info),
        )

    def _fail(self, outcome: TurnOutcome, answer: Answer) -> None:
        assert answer.error is not None
        error = answer.error
        outcome.status, outcome.reason = "failed", error.message
        self.journal.publish(EngineError(session_id=self.sid, turn_id=self.tid,
                                         message=error.message, hint=error.hint,
                                         cause=error.kind))  # fmt: skip
        self._end("failed", error.message)

    def _end(self, status: TurnStatus, reason: str | None) -> None:
        self.journal.record(
            TurnEndRecord(turn_id=self.tid, status=status, reason=reason),
            TurnEnded(session_id=self.sid, turn_id=self.tid, status=status, reason=reason),
        )
        self.journal.turn_ended()

    def _close_open_calls(self, text: str) -> None:
        for call in self._open_calls:
            self.journal.record(
                ToolResultRecord(tool_call_id=call.id, name=call.name, output=text,
                                 is_error=True),
                ToolCallFinished(session_id=self.sid, turn_id=self.tid, call_id=call.id,
                                 is_error=True, output=text),
            )  # fmt: skip
        self._open_calls.clear()

    def _close_interrupted(self) -> None:
        partial = self._partial
        if partial is not None and partial.full_text:
            self.journal.record(MessageRecord(role="assistant", text=partial.full_text))
        self._close_open_calls(INTERRUPTED)
        self._end("interrupted", "interrupted by the user")


def _too_long(error: ErrorEvent, what: str) -> ErrorEvent:
    """The error that ends a turn whose request stayed too long for the model."""
    return error.model_copy(update={
        "message": f"the conversation is too long for the model's context window ({what}): "
                   f"{error.message}",
        "hint": STILL_TOO_LONG_HINT,
    })  # fmt: skip
