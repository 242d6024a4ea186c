"""The Anthropic Messages stream -> ``StreamEvent``s, and the adapter that runs one call.

Handles every documented event: ``message_start``, ``content_block_start`` / ``_delta`` /
``_stop`` (text, thinking, signature and input_json deltas; redacted thinking),
``message_delta`` (stop reason, cumulative usage), ``message_stop``, ``ping`` and ``error``
(which may arrive after a 200). Unknown events and delta types are ignored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from zengine_jupyter.llm._http import MALFORMED, LazyHttp, malformed, open_stream, redact
from zengine_jupyter.llm._sse import SSEDecoder, event_json
from zengine_jupyter.llm.anthropic._request import build_body
from zengine_jupyter.protocol import (
    ProviderConnectionError,
    ProviderError,
    ProviderStreamError,
    StopEvent,
    TextDelta,
    ThinkingDelta,
    TokenUsage,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from zengine_jupyter.llm._endpoint import CallSpec, Endpoint
    from zengine_jupyter.llm._keys import Secret
    from zengine_jupyter.llm._options import Timeouts
    from zengine_jupyter.protocol import ModelRequest, StopReason, StreamEvent

_text = TextDelta.__pydantic_validator__.validate_python
"""``TextDelta(text=...)``, validated, without the keyword-call overhead (hot path)."""

__all__ = ["API_VERSION", "AnthropicAdapter", "stop_reason"]

API_VERSION = "2023-06-01"
"""Accepted by the API, by every Anthropic-compatible proxy, and by the local test server."""

_RETRYABLE_STREAM_ERRORS = frozenset(
    {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}
)
_STOP: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
    "pause_turn": "pause_turn",
    "model_context_window_exceeded": "context_window_exceeded",
}


def stop_reason(raw: str | None) -> StopReason:
    return _STOP.get(raw or "", "other")


def _usage(raw: dict[str, Any], into: dict[str, int]) -> None:
    for ours, theirs in (
        ("input_tokens", "input_tokens"),
        ("output_tokens", "output_tokens"),
        ("cache_read_tokens", "cache_read_input_tokens"),
        ("cache_write_tokens", "cache_creation_input_tokens"),
    ):
        value = raw.get(theirs)
        if isinstance(value, int):
            into[ours] = value


@dataclass
class _State:
    usage: dict[str, int] = field(default_factory=dict)
    tools: dict[int, tuple[int, str, str, list[str]]] = field(default_factory=dict)
    stop: str | None = None
    done: bool = False


class AnthropicAdapter:
    """Speaks the Messages API to one endpoint with one key (or none, for a local server)."""

    def __init__(self, endpoint: Endpoint, secret: Secret | None, timeouts: Timeouts) -> None:
        self.endpoint = endpoint
        self._secret = secret
        self._http = LazyHttp(timeouts, local=endpoint.local)
        self._url = f"{endpoint.base_url}/v1/messages"

    def __repr__(self) -> str:
        return f"AnthropicAdapter({self.endpoint.base_url!r})"

    def _headers(self) -> dict[str, str]:
        headers = {
            "content-type": "application/json",
            "accept": "text/event-stream",
            "accept-encoding": "identity",
            "anthropic-version": API_VERSION,
        }
        if self._secret is not None:
            headers["x-api-key"] = self._secret.reveal()
        return headers

    async def prepare(self) -> None:
        """Make the HTTP client now rather than in the first request (optional)."""
        await self._http.get()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def events(self, request: ModelRequest, call: CallSpec) -> AsyncIterator[StreamEvent]:
        state = _State()
        decoder = SSEDecoder()
        body = build_body(request, call)
        try:
            async with open_stream(
                await self._http.get(), self._url, self._headers(), body, self._secret
            ) as chunks:
                async for chunk in chunks:
                    for _name, data in decoder.feed(chunk):
                        obj = event_json(data)
                        delta = obj.get("delta")
                        if obj["type"] == "content_block_delta" and delta["type"] == "text_delta":
                            yield _text({"text": delta["text"]})  # the hot path
                            continue
                        for event in _event(obj, state, self._secret):
                            yield event
                        if state.done:
                            yield UsageEvent(model=call.model, usage=TokenUsage(**state.usage))
                            yield StopEvent(reason=stop_reason(state.stop), raw=state.stop)
                            return
            raise ProviderConnectionError(
                "the Anthropic stream ended before message_stop",
                hint="the connection was cut; it is retried automatically when no text had arrived",
            )
        except (ProviderError, *MALFORMED) as exc:
            error = exc if isinstance(exc, ProviderError) else malformed(self.endpoint.host, exc)
            if state.usage:  # the provider counts what it already processed
                yield UsageEvent(model=call.model, usage=TokenUsage(**state.usage))
            if error is exc:
                raise
            raise error from exc


def _event(obj: dict[str, Any], state: _State, secret: Secret | None) -> list[StreamEvent]:
    """Every event but a text delta (the caller's hot path); sets ``state.done`` at the end."""
    kind = obj.get("type")
    tools = state.tools
    if kind == "content_block_delta":
        delta = obj["delta"]
        dtype = delta.get("type")
        if dtype == "input_json_delta":
            call = tools.get(obj["index"])
            if call is not None and delta.get("partial_json"):
                call[3].append(delta["partial_json"])
                return [ToolCallDelta(index=call[0], arguments=delta["partial_json"])]
        elif dtype == "thinking_delta":
            return [ThinkingDelta(thinking=delta["thinking"])]
        elif dtype == "signature_delta":
            return [ThinkingDelta(signature=delta["signature"])]
    elif kind == "content_block_start":
        block = obj["content_block"]
        btype = block.get("type")
        if btype == "tool_use":
            call = (len(tools), str(block["id"]), str(block["name"]), [])
            tools[obj["index"]] = call
            return [ToolCallStart(index=call[0], id=call[1], name=call[2])]
        if btype == "text" and block.get("text"):
            return [TextDelta(text=block["text"])]
        if btype == "thinking" and block.get("thinking"):
            return [ThinkingDelta(thinking=block["thinking"])]
        if btype == "redacted_thinking":
            return [ThinkingDelta(redacted=str(block.get("data", "")))]
    elif kind == "content_block_stop":
        call = tools.get(obj["index"])
        if call is not None:
            return [_tool_end(call)]
    elif kind == "message_start":
        _usage(obj.get("message", {}).get("usage") or {}, state.usage)
    elif kind == "message_delta":
        state.stop = (obj.get("delta") or {}).get("stop_reason") or state.stop
        _usage(obj.get("usage") or {}, state.usage)
    elif kind == "message_stop":
        state.done = True
    elif kind == "error":
        err = obj.get("error") or {}
        etype = str(err.get("type", "error"))
        raise ProviderStreamError(
            f"Anthropic stream error {etype}: {redact(str(err.get('message', '')), secret)}",
            retryable=etype in _RETRYABLE_STREAM_ERRORS,
            status=529 if etype == "overloaded_error" else None,
        )
    return []


def _tool_end(call: tuple[int, str, str, list[str]]) -> ToolCallEnd:
    raw = "".join(call[3])
    try:
        parsed = json.loads(raw) if raw.strip() else {}
    except (ValueError, RecursionError):  # RecursionError: nested too deep to be arguments
        parsed = None
    if not isinstance(parsed, dict):
        return ToolCallEnd(index=call[0], id=call[1], name=call[2], input={}, raw_arguments=raw)
    return ToolCallEnd(index=call[0], id=call[1], name=call[2], input=parsed)
