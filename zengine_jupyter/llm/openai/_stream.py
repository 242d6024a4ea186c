"""The chat-completions stream -> ``StreamEvent``s, and the adapter that runs one call.

Text from ``delta.content``; thinking from ``delta.reasoning_content`` or ``delta.reasoning``
(vLLM, Ollama, OpenRouter, DeepSeek, LM Studio); tool calls keyed by ``index`` (a call
without one, or a new id on a reused index, starts a new call); usage from the final chunk;
``data: [DONE]`` ends it. A chunk with a top-level ``error`` is a stream error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from zengine_jupyter.llm._http import MALFORMED, LazyHttp, malformed, open_stream, redact
from zengine_jupyter.llm._sse import SSEDecoder, event_json
from zengine_jupyter.llm.openai._request import build_body
from zengine_jupyter.protocol import (
    ProviderConnectionError,
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
    from collections.abc import AsyncIterator, Iterator

    from zengine_jupyter.llm._endpoint import CallSpec, Endpoint
    from zengine_jupyter.llm._keys import Secret
    from zengine_jupyter.llm._options import Timeouts
    from zengine_jupyter.protocol import ModelRequest, StopReason, StreamEvent

_text = TextDelta.__pydantic_validator__.validate_python
"""``TextDelta(text=...)``, validated, without the keyword-call overhead (hot path)."""

__all__ = ["OpenAIAdapter", "stop_reason", "usage_from"]

_STOP: dict[str, StopReason] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}


def stop_reason(raw: str | None, had_tools: bool) -> StopReason:
    if had_tools and raw in ("stop", None):  # Gemini ends tool calls with "stop"
        return "tool_use"
    return _STOP.get(raw or "", "other")


def usage_from(raw: dict[str, Any]) -> TokenUsage:
    """``prompt_tokens`` includes cached and cache-written tokens; ours does not."""
    details = raw.get("prompt_tokens_details") or {}
    cached = int(details.get("cached_tokens") or 0)
    written = int(details.get("cache_write_tokens") or 0)
    prompt = int(raw.get("prompt_tokens") or 0)
    return TokenUsage(
        input_tokens=max(0, prompt - cached - written),
        output_tokens=int(raw.get("completion_tokens") or 0),
        cache_read_tokens=cached,
        cache_write_tokens=written,
    )


@dataclass
class _Call:
    index: int
    id: str
    name: str
    args: list[str] = field(default_factory=list)
    extra: dict[str, Any] | None = None

    def end(self) -> ToolCallEnd:
        raw = "".join(self.args)
        try:
            parsed = json.loads(raw) if raw.strip() else {}
        except (ValueError, RecursionError):  # RecursionError: nested too deep to be arguments
            parsed = None
        invalid = None if isinstance(parsed, dict) else raw
        return ToolCallEnd(
            index=self.index,
            id=self.id,
            name=self.name,
            input=parsed if isinstance(parsed, dict) else {},
            raw_arguments=invalid,
            extra=self.extra,
        )


@dataclass
class _Calls:
    by_key: dict[int, _Call] = field(default_factory=dict)
    order: list[_Call] = field(default_factory=list)
    ended: int = 0

    def feed(self, tc: dict[str, Any]) -> Iterator[StreamEvent]:
        key = tc.get("index")
        call_id = tc.get("id")
        fn = tc.get("function") or {}
        extra = tc.get("extra_content")
        if key is None and not call_id and not fn and self.order:  # Gemini: metadata only
            if isinstance(extra, dict):
                self.order[-1].extra = {**(self.order[-1].extra or {}), **extra}
            return
        current = self.by_key.get(key) if isinstance(key, int) else None
        if current is None or (call_id and call_id != current.id):
            n = len(self.order)
            current = _Call(n, str(call_id or f"call_{n}"), str(fn.get("name") or ""))
            self.by_key[key if isinstance(key, int) else -1 - n] = current
            self.order.append(current)
            yield ToolCallStart(index=current.index, id=current.id, name=current.name)
        if isinstance(extra, dict):
            current.extra = {**(current.extra or {}), **extra}
        piece = fn.get("arguments")
        if isinstance(piece, str) and piece:
            current.args.append(piece)
            yield ToolCallDelta(index=current.index, arguments=piece)

    def close(self) -> Iterator[ToolCallEnd]:
        for call in self.order[self.ended :]:
            yield call.end()
        self.ended = len(self.order)


@dataclass
class _State:
    calls: _Calls = field(default_factory=_Calls)
    finish: str | None = None
    usage: TokenUsage | None = None
    done: bool = False


class OpenAIAdapter:
    """Speaks chat completions to one endpoint; the key (if any) goes as a Bearer token."""

    def __init__(self, endpoint: Endpoint, secret: Secret | None, timeouts: Timeouts) -> None:
        self.endpoint = endpoint
        self._secret = secret
        self._http = LazyHttp(timeouts, local=endpoint.local)
        self._url = f"{endpoint.base_url}/chat/completions"

    def __repr__(self) -> str:
        return f"OpenAIAdapter({self.endpoint.base_url!r})"

    async def prepare(self) -> None:
        """Make the HTTP client now rather than in the first request (optional)."""
        await self._http.get()

    async def aclose(self) -> None:
        await self._http.aclose()

    def _headers(self) -> dict[str, str]:
        headers = {
            "content-type": "application/json",
            "accept": "text/event-stream",
            "accept-encoding": "identity",
        }
        if self._secret is not None:
            headers["authorization"] = f"Bearer {self._secret.reveal()}"
        return headers

    async def events(self, request: ModelRequest, call: CallSpec) -> AsyncIterator[StreamEvent]:
        body = build_body(request, call, self.endpoint)
        state = _State()
        decoder = SSEDecoder()
        try:
            async with open_stream(
                await self._http.get(), self._url, self._headers(), body, self._secret
            ) as chunks:
                async for chunk in chunks:
                    for _name, data in decoder.feed(chunk):
                        if data == "[DONE]":
                            state.done = True
                            break
                        obj = event_json(data)
                        choices = obj.get("choices")
                        if choices and len(choices) == 1 and not obj.get("usage"):
                            delta = choices[0].get("delta")
                            if (
                                delta
                                and len(delta) == 1
                                and "content" in delta
                                and not choices[0].get("finish_reason")
                            ):
                                if delta["content"]:
                                    yield _text({"text": delta["content"]})  # the hot path
                                continue
                        for event in self._chunk(obj, state):
                            yield event
                    if state.done:
                        break
        except MALFORMED as exc:
            raise malformed(self.endpoint.host, exc) from exc
        if not state.done and state.finish is None:
            if state.usage is not None:
                yield UsageEvent(model=call.model, usage=state.usage)
            raise ProviderConnectionError(
                f"the stream from {self.endpoint.host} ended before [DONE]",
                hint="the connection was cut; it is retried automatically when no text had arrived",
            )
        for end in state.calls.close():
            yield end
        if state.usage is not None:
            yield UsageEvent(model=call.model, usage=state.usage)
        yield StopEvent(reason=stop_reason(state.finish, bool(state.calls.order)), raw=state.finish)

    def _chunk(self, obj: dict[str, Any], state: _State) -> list[StreamEvent]:
        if obj.get("error"):
            raise _stream_error(obj["error"], self.endpoint.host, self._secret)
        out: list[StreamEvent] = []
        for choice in obj.get("choices") or ():
            delta = choice.get("delta") or {}
            if delta.get("content"):
                out.append(TextDelta(text=delta["content"]))
            thought = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(thought, str) and thought:
                out.append(ThinkingDelta(thinking=thought))
            for tc in delta.get("tool_calls") or ():
                out.extend(state.calls.feed(tc))
            if choice.get("finish_reason"):
                state.finish = choice["finish_reason"]
                out.extend(state.calls.close())
        if obj.get("usage"):
            state.usage = usage_from(obj["usage"])
        return out


def _stream_error(err: Any, host: str, secret: Secret | None) -> ProviderStreamError:
    if not isinstance(err, dict):
        return ProviderStreamError(f"{host} stream error: {redact(str(err), secret)[:300]}")
    code = err.get("code")
    kind = str(err.get("type") or code or "error")
    retryable = (isinstance(code, int) and (code == 429 or code >= 500)) or kind in (
        "server_error",
        "api_error",
        "overloaded_error",
        "rate_limit_error",
    )
    message = redact(str(err.get("message", "")), secret)[:300]
    return ProviderStreamError(
        f"{host} stream error {kind}: {message}",
        retryable=retryable,
        status=code if isinstance(code, int) else None,
    )
