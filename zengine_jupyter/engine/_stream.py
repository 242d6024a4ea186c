"""Reading one model answer: deltas go out as events, the finished answer comes back.

Text UTF-8 cannot encode (a lone surrogate the model sent as a JSON escape) is shown escaped
(``\\ud800``) from here on; a tool call whose arguments hold any is kept, escaped, and
answered as a bad call (``Answer.bad_calls``) without running.

While the provider sends nothing (before the first event or mid-stream) a ``Notice`` (topic
``provider``) says "waiting for the provider · Ns" after 5 s of silence, then at
``WAIT_MARKS_S``; a retry's announced wait does not count as silence.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zengine_jupyter.protocol import (
    ErrorEvent,
    FallbackEvent,
    Notice,
    ProviderBusy,
    RecordedToolCall,
    RetryEvent,
    StopEvent,
    TextDelta,
    TextStreamed,
    ThinkingBlock,
    ThinkingDelta,
    ThinkingStreamed,
    ToolCallEnd,
    UsageEvent,
    escape_surrogates,
    escape_surrogates_in,
    find_surrogate,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterator

    from zengine_jupyter.protocol import EngineEvent, StreamEvent

__all__ = ["WAIT_MARKS_S", "Answer", "read_answer"]

WAIT_MARKS_S: tuple[float, ...] = (5, 10, 15, 30, 45, 60, 90, 120)
"""Seconds of silence at which a "waiting for the provider" notice goes out; then each minute."""


@dataclass
class Answer:
    """What the model said in one response (possibly cut short by an error)."""

    text: list[str] = field(default_factory=list)
    thinking: list[ThinkingBlock] = field(default_factory=list)
    calls: list[RecordedToolCall] = field(default_factory=list)
    bad_calls: dict[str, str] = field(default_factory=dict)
    """Call id -> why its arguments could not be used (not a JSON object, not valid Unicode):
    the text the model gets back instead of running the call."""
    usage: list[UsageEvent] = field(default_factory=list)
    stop: StopEvent | None = None
    error: ErrorEvent | None = None
    _thinking_text: list[str] = field(default_factory=list)

    @property
    def full_text(self) -> str:
        return "".join(self.text)


async def read_answer(
    events: AsyncIterator[StreamEvent],
    publish: Callable[[EngineEvent], None],
    session_id: str,
    turn_id: str,
    on_usage: Callable[[UsageEvent], None],
) -> Answer:
    """Consume one response; ``on_usage`` journals each billed attempt as it arrives."""
    silence = _Silence(publish, session_id, turn_id)
    watch = asyncio.create_task(silence.watch(), name=f"zengine-silence-{turn_id}")
    try:
        return await _read(events, publish, session_id, turn_id, on_usage, silence)
    finally:
        watch.cancel()  # not awaited: awaiting here could swallow the turn's own cancel


class _Silence:
    """Tells the user the provider has gone quiet (the stream itself waits on)."""

    def __init__(self, publish: Callable[[EngineEvent], None], sid: str, tid: str) -> None:
        self._publish, self._sid, self._tid = publish, sid, tid
        self._loop = asyncio.get_running_loop()
        self.since = self._loop.time()

    def heard(self, event: StreamEvent) -> None:
        self.since = self._loop.time()
        if isinstance(event, RetryEvent):  # the retry wait is announced on its own
            self.since += event.wait_s

    async def watch(self) -> None:
        period, marks = self.since, _marks()
        mark = next(marks)
        while True:
            await asyncio.sleep(max(0.0, period + mark - self._loop.time()))
            if period != self.since:  # something arrived: count again from the start
                period, marks = self.since, _marks()
                mark = next(marks)
                continue
            text = f"waiting for the provider · {mark:g}s"
            self._publish(Notice(session_id=self._sid, turn_id=self._tid, topic="provider",
                                 text=text))  # fmt: skip
            mark = next(marks)


def _marks() -> Iterator[float]:
    yield from WAIT_MARKS_S
    mark = WAIT_MARKS_S[-1]
    while True:
        mark += 60
        yield mark


async def _read(
    events: AsyncIterator[StreamEvent],
    publish: Callable[[EngineEvent], None],
    session_id: str,
    turn_id: str,
    on_usage: Callable[[UsageEvent], None],
    silence: _Silence,
) -> Answer:
    answer = Answer()
    async for event in events:
        silence.heard(event)
        if isinstance(event, TextDelta):
            text = escape_surrogates(event.text)
            answer.text.append(text)
            publish(TextStreamed(session_id=session_id, turn_id=turn_id, text=text))
        elif isinstance(event, ThinkingDelta):
            _thinking(answer, event)
            if event.thinking:
                publish(ThinkingStreamed(session_id=session_id, turn_id=turn_id,
                                         text=escape_surrogates(event.thinking)))  # fmt: skip
        elif isinstance(event, ToolCallEnd):
            _call(answer, event)
        elif isinstance(event, UsageEvent):
            answer.usage.append(event)
            on_usage(event)
        elif isinstance(event, RetryEvent):
            answer.thinking.clear()  # the failed attempt's thinking is void (stream contract)
            answer._thinking_text.clear()
            publish(ProviderBusy(session_id=session_id, turn_id=turn_id, attempt=event.attempt,
                                 wait_s=event.wait_s, message=event.message,
                                 attempts=event.attempts, provider=event.host,
                                 model=event.model, reason=event.reason))  # fmt: skip
        elif isinstance(event, FallbackEvent):
            answer.thinking.clear()
            answer._thinking_text.clear()
            text = f"{event.from_model} failed ({event.reason}); trying {event.to_model}"
            publish(Notice(session_id=session_id, turn_id=turn_id, topic="provider", text=text))
        elif isinstance(event, StopEvent):
            answer.stop = event
        elif isinstance(event, ErrorEvent):
            answer.error = event
    if answer._thinking_text:  # thinking without a closing signature (OpenAI-compatible)
        answer.thinking.append(ThinkingBlock(text="".join(answer._thinking_text)))
    return answer


def _call(answer: Answer, event: ToolCallEnd) -> None:
    arguments, problem = event.input, None
    if event.raw_arguments is not None:
        raw = escape_surrogates(event.raw_arguments[:200])
        problem = f"the arguments were not a JSON object: {raw}"
    elif (found := find_surrogate(arguments)) is not None:
        where, char = found
        arguments = escape_surrogates_in(arguments)
        problem = (
            f"the arguments hold text that is not valid Unicode (a lone surrogate {char} in "
            f"{where}), so the call was not run; send that text as valid UTF-8"
        )
    call_id = escape_surrogates(event.id)
    name = escape_surrogates(event.name)
    answer.calls.append(RecordedToolCall(id=call_id, name=name, input=arguments))
    if problem is not None:
        answer.bad_calls[call_id] = problem


def _thinking(answer: Answer, event: ThinkingDelta) -> None:
    if event.thinking:
        answer._thinking_text.append(escape_surrogates(event.thinking))
    if event.signature is not None:
        answer.thinking.append(
            ThinkingBlock(text="".join(answer._thinking_text), signature=event.signature)
        )
        answer._thinking_text.clear()
