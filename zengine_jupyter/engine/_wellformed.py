"""Request well-formedness: whatever the log holds, the request is one every provider accepts.

A log can hold anything a crash, a lost write or a failed turn left behind: two user
messages in a row, a tool call with no result, a result whose call was lost, a
duplicated call id, an empty message. :func:`build_request` turns any sequence of
records into messages that

* start with ``user`` and alternate ``user`` / ``assistant``;
* answer every tool call of an assistant message in the very next (user) message,
  in call order: with its recorded result, or an ``"interrupted"`` error result;
* carry no tool result that does not answer a call of the message before;
* use each tool call id once, and are never empty.

It only reads records; it never changes the log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from zengine_jupyter.protocol import (
    CompactionRecord,
    MessageRecord,
    RecordedToolCall,
    ThinkingBlock,
    ToolResultRecord,
    message_from_records,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from zengine_jupyter.protocol import ImagePart, LogRecord, Message, RecordedImage

__all__ = [
    "INTERRUPTED",
    "MISSING_START",
    "RequestMessage",
    "build_request",
    "check_request",
    "request_messages",
]

INTERRUPTED = "interrupted"
"""The output of a tool call that never got its result."""

MISSING_START = "[The start of this conversation is not available.]"
"""The user text put first when the history begins with the assistant."""


@dataclass(frozen=True)
class RequestMessage:
    """One provider-neutral message of a request (adapters map it to their wire format).

    A user message carries tool results first, then text; an assistant message carries
    thinking, text and tool calls.
    """

    role: Literal["user", "assistant"]
    texts: tuple[str, ...] = ()
    thinking: tuple[ThinkingBlock, ...] = ()
    tool_calls: tuple[RecordedToolCall, ...] = ()
    tool_results: tuple[ToolResultRecord, ...] = ()
    images: tuple[RecordedImage, ...] = ()
    """A user message's attached images, after its text."""


def _interrupted(call: RecordedToolCall) -> ToolResultRecord:
    return ToolResultRecord(
        id=f"synthetic-{call.id}",
        tool_call_id=call.id,
        name=call.name,
        output=INTERRUPTED,
        is_error=True,
    )


def _first_answers(records: list[LogRecord]) -> dict[str, ToolResultRecord]:
    """For each call id, the first result recorded after the call."""
    called: set[str] = set()
    answers: dict[str, ToolResultRecord] = {}
    for record in records:
        if isinstance(record, MessageRecord) and record.role == "assistant":
            called.update(c.id for c in record.tool_calls)
        elif (
            isinstance(record, ToolResultRecord)
            and record.tool_call_id in called
            and record.tool_call_id not in answers
        ):
            answers[record.tool_call_id] = record
    return answers


def _merge(into: RequestMessage, other: RequestMessage) -> RequestMessage:
    return RequestMessage(
        role=into.role,
        texts=into.texts + other.texts,
        thinking=into.thinking + other.thinking,
        tool_calls=into.tool_calls + other.tool_calls,
        tool_results=into.tool_results + other.tool_results,
        images=into.images + other.images,
    )


def _unseen(calls: tuple[RecordedToolCall, ...], seen: set[str]) -> list[RecordedToolCall]:
    """The calls whose id was not used before (in this message or an earlier one)."""
    fresh: list[RecordedToolCall] = []
    for call in calls:
        if call.id not in seen:
            seen.add(call.id)
            fresh.append(call)
    return fresh


def _raw_messages(records: list[LogRecord]) -> list[RequestMessage]:
    """Messages in log order, each assistant call list followed by its answers."""
    answers = _first_answers(records)
    seen_calls: set[str] = set()
    out: list[RequestMessage] = []
    for record in records:
        if isinstance(record, CompactionRecord):
            if record.summary.strip():
                out.append(RequestMessage("user", texts=(record.summary,)))
        elif isinstance(record, MessageRecord):
            text = (record.text,) if record.text.strip() else ()
            if record.role == "user":
                if text or record.images:
                    out.append(RequestMessage("user", texts=text, images=record.images))
                continue
            calls = tuple(_unseen(record.tool_calls, seen_calls))
            if text or calls:
                out.append(RequestMessage("assistant", text, record.thinking, calls))
            if calls:
                results = tuple(answers.get(c.id) or _interrupted(c) for c in calls)
                out.append(RequestMessage("user", tool_results=results))
        # tool results were placed after their call above; other kinds are not sent
    return out


def build_request(records: Iterable[LogRecord]) -> list[RequestMessage]:
    """The messages to send for ``records`` (a working set, a transcript, anything)."""
    merged: list[RequestMessage] = []
    for message in _raw_messages(list(records)):
        # An assistant message with calls is always followed by its answers (a user
        # message), so two adjacent messages of one role can be merged safely.
        if merged and merged[-1].role == message.role:
            merged[-1] = _merge(merged[-1], message)
        else:
            merged.append(message)
    if merged and merged[0].role == "assistant":
        merged.insert(0, RequestMessage("user", texts=(MISSING_START,)))
    return merged


def check_request(messages: list[RequestMessage]) -> list[str]:
    """Every way ``messages`` breaks the rules above (empty: well-formed)."""
    problems: list[str] = []
    if messages and messages[0].role != "user":
        problems.append("the first message is not from the user")
    ids: set[str] = set()
    for i, msg in enumerate(messages):
        if not (msg.texts or msg.tool_calls or msg.tool_results or msg.images):
            problems.append(f"message {i} is empty")
        if i and messages[i - 1].role == msg.role:
            problems.append(f"messages {i - 1} and {i} are both {msg.role}")
        if msg.role == "user" and (msg.tool_calls or msg.thinking):
            problems.append(f"user message {i} has tool calls or thinking")
        if msg.role == "assistant" and msg.tool_results:
            problems.append(f"assistant message {i} has tool results")
        for call in msg.tool_calls:
            if call.id in ids:
                problems.append(f"tool call id {call.id!r} is used twice")
            ids.add(call.id)
        calls = [c.id for c in msg.tool_calls]
        following = messages[i + 1] if i + 1 < len(messages) else None
        answered = [r.tool_call_id for r in following.tool_results] if following else []
        if calls and answered != calls:
            problems.append(f"the tool calls of message {i} are not answered in message {i + 1}")
        previous = messages[i - 1] if i else None
        asked = [c.id for c in previous.tool_calls] if previous else []
        if msg.tool_results and [r.tool_call_id for r in msg.tool_results] != asked:
            problems.append(f"message {i} has tool results that answer no call before it")
    return problems


def request_messages(
    records: Iterable[LogRecord], image: Callable[[RecordedImage], ImagePart | None] | None = None
) -> list[Message]:
    """:func:`build_request` as the request's provider-neutral messages; ``image`` gives a
    tool result's images (``ImageStore.part``), else each is a line of text."""
    return [
        message_from_records(m.role, texts=m.texts, thinking=m.thinking,
                             tool_calls=m.tool_calls, tool_results=m.tool_results,
                             images=m.images, image=image)
        for m in build_request(records)
    ]  # fmt: skip
