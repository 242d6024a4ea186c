"""Scripted model answers and faults, rendered in either wire format, byte for byte.

A ``Reply`` is provider-neutral (thinking, text, tool calls, usage, stop reason) plus the fault
to inject, if any. ``render_anthropic`` / ``render_openai`` turn it into the SSE events the real
APIs send (shapes from notes/wire-formats.md), so the official SDKs parse them too.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "Reply",
    "ScriptedToolCall",
    "ScriptedUsage",
    "context_error_body",
    "error_body",
    "render_anthropic",
    "render_openai",
]

Drop = Literal["before_first_byte", "after_text"]

_CALL_IDS = itertools.count(1)
"""Tool call ids are unique per process, as the real APIs' ids are unique."""

_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


@dataclass(frozen=True)
class ScriptedToolCall:
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None
    pieces: int = 2
    """How many fragments the JSON arguments are streamed in."""


@dataclass(frozen=True)
class ScriptedUsage:
    """Tokens the fake reports: uncached input, output, cache reads, cache writes."""

    input: int = 12
    output: int = 7
    cache_read: int = 0
    cache_write: int = 0


@dataclass(frozen=True)
class Reply:
    """One scripted answer, or a fault.

    Faults: ``status`` (with ``retry_after``: seconds or an HTTP date), ``delay_s`` before the
    response starts (for read timeouts), ``drop`` (``before_first_byte``: close without a byte;
    ``after_text``: close mid-stream right after the text), ``stream_error`` (an ``error`` event
    after the text, e.g. ``overloaded_error``, on an HTTP 200 stream).
    ``raw`` replaces the rendered stream with the given SSE event bytes.
    """

    text: tuple[str, ...] = ()
    thinking: tuple[str, ...] = ()
    tool_calls: tuple[ScriptedToolCall, ...] = ()
    usage: ScriptedUsage = field(default_factory=ScriptedUsage)
    stop_reason: str | None = None
    """None = ``tool_use``/``tool_calls`` when there are tool calls, else ``end_turn``/``stop``."""
    status: int = 200
    retry_after: str | None = None
    error_message: str = "scripted failure"
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    drop: Drop | None = None
    stream_error: str | None = None
    ping: bool = True
    event_delay_s: float = 0.0
    """Pause after each event: a slow answer (e.g. for interrupting a turn mid-stream)."""
    raw: tuple[bytes, ...] = ()
    """Send these SSE events verbatim instead (for provider quirks: missing indexes, comments)."""
    too_long: tuple[int, int] | None = None
    """``(tokens, window)``: refuse the request as longer than the context window, with the
    real 400 body of the wire (see :func:`context_error_body`)."""

    @classmethod
    def answer(cls, *text: str, **kwargs: Any) -> Reply:
        return cls(text=text, **kwargs)

    @classmethod
    def context_overflow(cls, tokens: int = 205_351, window: int = 200_000) -> Reply:
        """The provider's "prompt is too long" / ``context_length_exceeded`` answer."""
        return cls(status=400, too_long=(tokens, window))

    @classmethod
    def fault(cls, status: int, retry_after: str | float | None = None, **kwargs: Any) -> Reply:
        ra = None if retry_after is None else str(retry_after)
        return cls(status=status, retry_after=ra, **kwargs)


def _sse(event: str | None, data: Any) -> bytes:
    body = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {body}\n\n".encode()


def error_body(wire: str, status: int, message: str, kind: str | None = None) -> bytes:
    if wire == "anthropic":
        etype = kind or _ANTHROPIC_ERROR_TYPES.get(
            status, "api_error" if status >= 500 else "invalid_request_error"
        )
        return json.dumps(
            {
                "type": "error",
                "error": {"type": etype, "message": message},
                "request_id": "req_011CfakeProvider",
            }
        ).encode()
    etype = kind or ("invalid_request_error" if status < 500 else "server_error")
    return json.dumps(
        {"error": {"message": message, "type": etype, "param": None, "code": None}}
    ).encode()


def context_error_body(wire: str, tokens: int, window: int) -> bytes:
    """The 400 a request longer than the window gets, in each wire's real words
    (notes/wire-formats.md; OpenAI's ``context_length_exceeded`` body)."""
    if wire == "anthropic":
        return error_body(wire, 400, f"prompt is too long: {tokens} tokens > {window} maximum")
    message = (
        f"This model's maximum context length is {window} tokens. However, your messages "
        f"resulted in {tokens} tokens. Please reduce the length of the messages."
    )
    return json.dumps(
        {
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        }
    ).encode()


def render_anthropic(reply: Reply, model: str) -> tuple[list[bytes], int]:
    """The events of a Messages stream, and how many of them end with the last text delta."""
    u = reply.usage
    events = [
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_01FakeProvider",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": u.input,
                        "cache_creation_input_tokens": u.cache_write,
                        "cache_read_input_tokens": u.cache_read,
                        "cache_creation": {
                            "ephemeral_5m_input_tokens": u.cache_write,
                            "ephemeral_1h_input_tokens": 0,
                        },
                        "output_tokens": 1,
                        "service_tier": "standard",
                    },
                },
            },
        )
    ]
    index = 0

    def block(start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        nonlocal index
        events.append(
            _sse(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        if reply.ping and index == 0:
            events.append(_sse("ping", {"type": "ping"}))
        for delta in deltas:
            events.append(
                _sse(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        events.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1

    if reply.thinking:
        deltas = [{"type": "thinking_delta", "thinking": t} for t in reply.thinking]
        deltas.append({"type": "signature_delta", "signature": "EqQBCgIYAhIMfakeSignature"})
        block({"type": "thinking", "thinking": "", "signature": ""}, deltas)
    if reply.text:
        block({"type": "text", "text": ""}, [{"type": "text_delta", "text": t} for t in reply.text])
    text_end = len(events) - 1 if reply.text else len(events)
    if reply.stream_error:
        events.append(
            _sse(
                "error",
                {
                    "type": "error",
                    "error": {"type": reply.stream_error, "message": reply.error_message},
                },
            )
        )
        return events, text_end
    for call in reply.tool_calls:
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in ["", *_pieces(call)]]
        start = {
            "type": "tool_use",
            "id": call.id or f"toolu_01Fake{next(_CALL_IDS):06d}",
            "name": call.name,
            "input": {},
        }
        block(start, deltas)
    stop = reply.stop_reason or ("tool_use" if reply.tool_calls else "end_turn")
    events.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": u.output},
            },
        )
    )
    events.append(_sse("message_stop", {"type": "message_stop"}))
    return events, text_end


def _pieces(call: ScriptedToolCall) -> list[str]:
    raw = json.dumps(dict(call.arguments))
    n = max(1, min(call.pieces, len(raw)))
    size = -(-len(raw) // n)
    return [raw[i : i + size] for i in range(0, len(raw), size)]


def render_openai(reply: Reply, model: str, include_usage: bool) -> tuple[list[bytes], int]:
    """The chunks of a chat-completions stream (``[DONE]`` last), and the text end position."""
    base: dict[str, Any] = {
        "id": "chatcmpl-fakeProvider",
        "object": "chat.completion.chunk",
        "created": 1760000000,
        "model": model,
        "system_fingerprint": "fp_fake",
        "service_tier": "default",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        body = {
            **base,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        if include_usage:
            body["usage"] = None
        return _sse(None, body)

    events = [chunk({"role": "assistant", "content": "", "refusal": None})]
    events += [chunk({"reasoning_content": t}) for t in reply.thinking]
    events += [chunk({"content": t}) for t in reply.text]
    text_end = len(events)
    if reply.stream_error:
        events.append(
            _sse(
                None,
                {
                    "error": {
                        "message": reply.error_message,
                        "type": reply.stream_error,
                        "param": None,
                        "code": None,
                    }
                },
            )
        )
        return events, text_end
    for n, call in enumerate(reply.tool_calls):
        first = {
            "index": n,
            "id": call.id or f"call_fake{next(_CALL_IDS):06d}",
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        events.append(chunk({"tool_calls": [first]}))
        events += [
            chunk({"tool_calls": [{"index": n, "function": {"arguments": p}}]})
            for p in _pieces(call)
        ]
    stop = reply.stop_reason or ("tool_calls" if reply.tool_calls else "stop")
    events.append(chunk({}, stop))
    if include_usage:
        u = reply.usage
        usage = {
            "prompt_tokens": u.input + u.cache_read + u.cache_write,
            "completion_tokens": u.output,
            "total_tokens": u.input + u.cache_read + u.cache_write + u.output,
            "prompt_tokens_details": {
                "cached_tokens": u.cache_read,
                "cache_write_tokens": u.cache_write,
                "audio_tokens": 0,
            },
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        }
        events.append(_sse(None, {**base, "choices": [], "usage": usage}))
    events.append(b"data: [DONE]\n\n")
    return events, text_end
