"""A ``ModelClient`` without HTTP, and the stream contract every client must keep.

``FakeModelClient`` answers each request with the next scripted ``Reply`` as provider-neutral
events (what an adapter would yield), recording the requests; engine tests that do not need
the wire use it. ``assert_stream_contract`` checks a finished stream against the rules in
``zengine_jupyter.protocol._llm``; the contract test runs it on the real client too.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from pydantic import TypeAdapter

from zengine_jupyter.protocol import (
    ErrorEvent,
    StopEvent,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    TokenUsage,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from zengine_jupyter.testing._provider_script import Reply, _pieces

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from zengine_jupyter.protocol import ModelRequest, StopReason

__all__ = ["FakeModelClient", "assert_stream_contract", "reply_events"]

_STOPS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "refusal": "refusal",
}


def reply_events(reply: Reply, model: str = "fake-model") -> list[StreamEvent]:
    """The events a client yields for ``reply`` (a fault becomes one final ``error``)."""
    if reply.status != 200 or reply.drop == "before_first_byte":
        return [
            ErrorEvent(message=f"scripted failure {reply.status}", status=reply.status, model=model)
        ]
    events: list[StreamEvent] = [ThinkingDelta(thinking=t) for t in reply.thinking]
    if reply.thinking:
        events.append(ThinkingDelta(signature="fake-signature"))
    events += [TextDelta(text=t) for t in reply.text]
    if reply.drop == "after_text" or reply.stream_error:
        events.append(
            ErrorEvent(message="scripted failure after text", model=model, after_text=True)
        )
        return events
    for n, call in enumerate(reply.tool_calls):
        call_id = call.id or f"toolu_fake{n:04d}"
        events.append(ToolCallStart(index=n, id=call_id, name=call.name))
        events += [ToolCallDelta(index=n, arguments=p) for p in _pieces(call)]
        events.append(ToolCallEnd(index=n, id=call_id, name=call.name, input=dict(call.arguments)))
    u = reply.usage
    usage = TokenUsage(
        input_tokens=u.input,
        output_tokens=u.output,
        cache_read_tokens=u.cache_read,
        cache_write_tokens=u.cache_write,
    )
    events.append(UsageEvent(model=model, usage=usage))
    raw = reply.stop_reason or ("tool_use" if reply.tool_calls else "end_turn")
    events.append(StopEvent(reason=_STOPS.get(raw, "other"), raw=raw))
    return events


class FakeModelClient:
    """Scripted like ``ProviderServer`` (``add`` / ``always``), but in memory."""

    def __init__(self, *replies: Reply, model: str = "fake-model") -> None:
        self.model = model
        self.requests: list[ModelRequest] = []
        self._queue = list(replies)
        self._always: Reply | None = None
        self.closed = False

    def add(self, *replies: Reply) -> None:
        self._queue.extend(replies)

    def always(self, reply: Reply | None) -> None:
        self._always = reply

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        reply = self._queue.pop(0) if self._queue else self._always
        if reply is None:
            yield ErrorEvent(message="fake model: no scripted reply left", kind="client")
            return
        for event in reply_events(reply, self.model):
            yield event

    async def aclose(self) -> None:
        self.closed = True


_ADAPTER: TypeAdapter[StreamEvent] = TypeAdapter(StreamEvent)


def assert_stream_contract(events: Sequence[StreamEvent]) -> None:
    """Raise ``AssertionError`` unless ``events`` is a complete, well-formed stream."""
    assert events, "a stream yields at least one event"
    *body, last = events
    assert isinstance(last, StopEvent | ErrorEvent), f"a stream ends with stop or error: {last!r}"
    for event in events:
        again = _ADAPTER.validate_json(event.model_dump_json())
        assert again == event, f"an event does not survive JSON: {event!r}"
    assert not [e for e in body if isinstance(e, StopEvent | ErrorEvent)], "stop/error only last"
    committed = False
    open_calls: dict[int, ToolCallStart] = {}
    arguments: dict[int, str] = {}
    for event in body:
        if event.type in ("retry", "fallback"):
            assert not committed, "no retry or fallback once text or a tool call streamed"
        elif isinstance(event, TextDelta):
            committed = True
        elif isinstance(event, ToolCallStart):
            committed = True
            assert event.index not in open_calls, f"tool call {event.index} started twice"
            open_calls[event.index] = event
            arguments[event.index] = ""
        elif isinstance(event, ToolCallDelta):
            assert event.index in open_calls, f"arguments for unknown tool call {event.index}"
            arguments[event.index] += event.arguments
        elif isinstance(event, ToolCallEnd):
            start = open_calls.pop(event.index)
            assert (start.id, start.name) == (event.id, event.name)
            if event.raw_arguments is None and arguments[event.index]:
                assert json.loads(arguments[event.index]) == event.input
    if isinstance(last, StopEvent):
        assert not open_calls, f"tool calls never ended: {sorted(open_calls)}"
        assert isinstance(body[-1] if body else None, UsageEvent) or not any(
            isinstance(e, UsageEvent) for e in body
        ), "usage comes right before stop"
    else:
        assert last.after_text == committed, "error.after_text tells whether text had streamed"
