"""Endpoint detection, client setup failures, roles, keys, and providers' stream quirks."""

from __future__ import annotations

import email.utils
import json
import pickle
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.llm import (
    AuthStore,
    ClientDeps,
    FailingClient,
    ProviderOptions,
    Secret,
    build_client,
    detect_endpoint,
    host_of,
    resolve_key,
)
from zengine_jupyter.llm._http import parse_retry_after, redact
from zengine_jupyter.protocol import (
    ConfigError,
    Message,
    ModelRequest,
    ProviderSetupError,
    StopEvent,
    TextPart,
    ThinkingDelta,
    ToolResultPart,
    ToolUsePart,
    UsageEvent,
)
from zengine_jupyter.testing import ProviderServer, Reply
from zengine_jupyter.testing.llm import KEY, ask, collect, final_error, stream_once, text_of


@pytest.mark.parametrize(
    ("kind", "url", "model", "wire", "base"),
    [
        ("auto", "https://api.anthropic.com", "x", "anthropic", "https://api.anthropic.com"),
        ("auto", "https://api.anthropic.com/v1/", "x", "anthropic", "https://api.anthropic.com"),
        ("auto", "https://openrouter.ai/api/v1", "x", "openai", "https://openrouter.ai/api/v1"),
        ("auto", "http://localhost:11434/v1", "x", "openai", "http://localhost:11434/v1"),
        ("auto", None, "claude-sonnet-4-6", "anthropic", "https://api.anthropic.com"),
        ("auto", None, "gpt-5", "openai", "https://api.openai.com/v1"),
        (
            "anthropic",
            "https://api.deepseek.com/anthropic",
            "x",
            "anthropic",
            "https://api.deepseek.com/anthropic",
        ),
        ("openai", "https://api.anthropic.com/v1", "x", "openai", "https://api.anthropic.com/v1"),
    ],
)
def test_endpoint_detection(kind: Any, url: str | None, model: str, wire: str, base: str) -> None:
    endpoint = detect_endpoint(kind, url, model)
    assert (endpoint.wire, endpoint.base_url) == (wire, base)


@pytest.mark.parametrize(
    "url", ["api.openai.com/v1", "ftp://host/v1", "https://", "http://h:99999/"]
)
async def test_a_malformed_url_gives_a_client_that_fails_each_request_with_the_reason(
    url: str,
) -> None:
    client = build_client(ProviderOptions(model="m", base_url=url), deps=ClientDeps(environ={}))
    assert isinstance(client, FailingClient)
    for _ in range(2):  # every request, not only the first
        events = await collect(client)
        assert [e.type for e in events] == ["error"]
        assert final_error(events).kind == "setup"
        assert "provider.base_url" in final_error(events).message
    await client.aclose()


async def test_no_key_for_a_remote_host_fails_each_request_naming_what_to_do() -> None:
    client = build_client(
        ProviderOptions(model="claude-sonnet-4-6"), deps=ClientDeps(environ={}, auth=AuthStore())
    )
    (event,) = await collect(client)
    assert event.type == "error"
    assert event.message == "no model is connected: no API key for api.anthropic.com"
    for way in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ZENGINE_BASE_URL", "%zengine setup",
                "replays a recording"):  # fmt: skip
        assert way in (event.hint or ""), way
    assert "zengine auth login api.anthropic.com" in (event.hint or "")


async def test_roles_fast_and_review_default_to_main() -> None:
    options = ProviderOptions(model="main-m", fast="fast-m")
    assert options.model_for("main") == "main-m"
    assert options.model_for("fast") == "fast-m"
    assert options.model_for("review") == "main-m"
    async with ProviderServer() as server:
        server.always(Reply.answer("ok"))
        for role in ("fast", "review"):
            await stream_once(
                ProviderOptions(
                    model="main-m", fast="fast-m", kind="openai", base_url=server.openai_url
                ),
                role=role,
                deps=ClientDeps(environ={}),
            )
    assert [r.json["model"] for r in server.requests] == ["fast-m", "main-m"]


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    body = {
        "id": "c",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }
    return f"data: {json.dumps(body)}\n\n".encode()


QUIRKS = (
    b": OPENROUTER PROCESSING\n\n",
    _chunk({"role": "assistant", "content": None}),
    _chunk({"reasoning_content": "deep "}),  # DeepSeek, LM Studio
    _chunk({"reasoning": "thought"}),  # Ollama, OpenRouter, newer vLLM
    _chunk({"content": "Hi"}),
    # Gemini: whole calls without "index"; Ollama-likes: a new id on a reused index 0
    _chunk(
        {
            "tool_calls": [
                {"id": "g1", "type": "function", "function": {"name": "a", "arguments": '{"x": 1}'}}
            ]
        }
    ),
    _chunk(
        {"tool_calls": [{"index": 0, "id": "o1", "function": {"name": "b", "arguments": "{}"}}]}
    ),
    _chunk(
        {
            "tool_calls": [
                {"index": 0, "id": "o2", "function": {"name": "c", "arguments": "not json"}}
            ]
        }
    ),
    _chunk({}, "stop"),  # Gemini ends tool calls with "stop"
    b'data: {"id":"c","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":5,'
    b'"prompt_tokens_details":{"cached_tokens":60,"cache_write_tokens":10}}}\n\n',
    b"data: [DONE]\n\n",
)


async def test_openai_compatible_quirks_are_understood() -> None:
    async with ProviderServer() as server:
        server.add(Reply(raw=QUIRKS))
        events = await stream_once(
            ProviderOptions(model="m", kind="openai", base_url=server.openai_url),
            deps=ClientDeps(environ={}),
        )
    assert "".join(e.thinking for e in events if e.type == "thinking") == "deep thought"
    assert text_of(events) == "Hi"
    ends = [e for e in events if e.type == "tool_call_end"]
    assert [(e.index, e.id, e.name, e.input) for e in ends] == [
        (0, "g1", "a", {"x": 1}),
        (1, "o1", "b", {}),
        (2, "o2", "c", {}),
    ]
    assert ends[2].raw_arguments == "not json"
    (usage,) = [e for e in events if e.type == "usage"]
    assert usage.usage.model_dump() == {
        "input_tokens": 30,
        "output_tokens": 5,
        "cache_read_tokens": 60,
        "cache_write_tokens": 10,
    }
    assert events[-1].type == "stop"
    assert events[-1].reason == "tool_use"


async def test_anthropic_redacted_thinking_and_unknown_events() -> None:
    def ev(name: str, data: dict[str, Any]) -> bytes:
        return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n".encode()

    raw = (
        ev("message_start", {"message": {"usage": {"input_tokens": 3, "output_tokens": 1}}}),
        ev(
            "content_block_start",
            {"index": 0, "content_block": {"type": "redacted_thinking", "data": "abc"}},
        ),
        ev("content_block_stop", {"index": 0}),
        ev("future_event", {"whatever": 1}),
        ev("content_block_start", {"index": 1, "content_block": {"type": "text", "text": ""}}),
        ev(
            "content_block_delta",
            {"index": 1, "delta": {"type": "citations_delta", "citation": {}}},
        ),
        ev("content_block_delta", {"index": 1, "delta": {"type": "text_delta", "text": "ok"}}),
        ev("content_block_stop", {"index": 1}),
        ev(
            "message_delta",
            {
                "delta": {"stop_reason": "model_context_window_exceeded"},
                "usage": {"output_tokens": 9},
            },
        ),
        ev("message_stop", {}),
    )
    async with ProviderServer() as server:
        server.add(Reply(raw=raw))
        events = await stream_once(
            ProviderOptions(model="m", kind="anthropic", base_url=server.base_url),
            deps=ClientDeps(environ={}),
        )
    assert [e.type for e in events] == ["thinking", "text", "usage", "stop"]
    thinking, _, usage, stop = events
    assert isinstance(thinking, ThinkingDelta)
    assert thinking.redacted == "abc"
    assert isinstance(usage, UsageEvent)
    assert usage.usage.output_tokens == 9
    assert isinstance(stop, StopEvent)
    assert stop.reason == "context_window_exceeded"


def test_retry_after_in_seconds_milliseconds_and_http_date() -> None:
    now = time.time()
    assert parse_retry_after({"retry-after": "7"}) == 7
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=now) == pytest.approx(30, abs=1)
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


async def test_retry_after_as_http_date_is_honoured_on_the_wire() -> None:
    from zengine_jupyter.testing import FakeClock

    clock = FakeClock()
    date = email.utils.formatdate(time.time() + 20, usegmt=True)
    async with ProviderServer(api_key=KEY) as server:
        server.add(Reply.fault(429, retry_after=date), Reply.answer("ok"))
        client = build_client(
            ProviderOptions(model="m", kind="openai", base_url=server.openai_url),
            deps=ClientDeps(environ={"ZENGINE_API_KEY": KEY}, sleep=clock.sleep),
        )
        try:
            assert text_of(await collect(client, ask())) == "ok"
        finally:
            await client.aclose()
    assert len(clock.waits) == 1
    assert 15 < clock.waits[0] <= 20


def test_key_order_and_host_binding(zengine_home: Path) -> None:
    store = AuthStore()
    store.set("https://API.OpenAI.com/v1", Secret("from-file"))
    assert store.hosts() == ["api.openai.com"]
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    env = {"OPENAI_API_KEY": "from-provider-var"}
    found = resolve_key("api.openai.com", {}, store)
    assert found is not None
    assert (found.source, found.secret.reveal()) == ("auth.json", "from-file")
    found = resolve_key("api.openai.com", env, store)
    assert found is not None
    assert found.source == "OPENAI_API_KEY"
    found = resolve_key("api.openai.com", {**env, "ZENGINE_API_KEY": "z"}, store)
    assert found is not None
    assert found.source == "ZENGINE_API_KEY"
    assert resolve_key("openrouter.ai", env, store) is None  # OpenAI's variable stays with OpenAI
    assert resolve_key("evil-openai.com", env, store) is None
    assert host_of("localhost:8080") == "localhost"


def test_secret_hides_itself_and_cannot_be_pickled() -> None:
    secret = Secret("sk-abcdefgh12345678")
    assert "sk-" not in repr(secret) + str(secret) + f"{secret}" + repr([secret])
    assert secret == Secret("sk-abcdefgh12345678")
    with pytest.raises(TypeError):
        pickle.dumps(secret)
    assert redact("Incorrect API key provided: sk-abc************5678.") == (
        "Incorrect API key provided: [redacted]."
    )
    assert redact("key is hunter2hunter2", Secret("hunter2hunter2")) == "key is [redacted]"


def test_a_corrupt_auth_json_is_a_config_error_naming_the_file(zengine_home: Path) -> None:
    (zengine_home / "auth.json").write_text("{broken")
    with pytest.raises(ConfigError, match=r"auth\.json"):
        AuthStore().hosts()
    client = build_client(ProviderOptions(model="gpt-5"), deps=ClientDeps(environ={}))
    assert isinstance(client, FailingClient)
    assert isinstance(client.reason, ProviderSetupError)
    assert "auth.json" in client.reason.message


@pytest.mark.parametrize(
    ("wire", "raw"),
    [
        (
            "anthropic",
            b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0}\n\n',
        ),
        ("anthropic", b"event: message_start\ndata: {not json\n\n"),
        ("openai", b"data: [1, 2]\n\n"),
        ("openai", b'data: {"choices":[{"delta":{"content":7}}]}\n\n'),
    ],
)
async def test_an_unreadable_event_ends_the_stream_with_an_error_not_an_exception(
    wire: str, raw: bytes
) -> None:
    async with ProviderServer() as server:
        server.add(Reply(raw=(raw,)))
        url = server.base_url if wire == "anthropic" else server.openai_url
        events = await stream_once(
            ProviderOptions(model="m", kind=wire, base_url=url),  # type: ignore[arg-type]
            deps=ClientDeps(environ={}),
        )
    assert [e.type for e in events] == ["error"]
    assert "sent a stream event this client cannot read" in final_error(events).message
    assert len(server.requests) == 1  # not retried: asking again would get the same


async def test_an_unset_model_is_the_providers_default_or_a_clear_failure() -> None:
    from zengine_jupyter.llm import ProviderClient

    client = build_client(ProviderOptions(), deps=ClientDeps(environ={"ANTHROPIC_API_KEY": KEY}))
    assert isinstance(client, ProviderClient)
    assert client.models == ("claude-sonnet-4-6",)
    assert client.adapter.endpoint.host == "api.anthropic.com"
    await client.aclose()
    local = build_client(
        ProviderOptions(model=" ", base_url="http://localhost:11434/v1"),
        deps=ClientDeps(environ={}),
    )
    (event,) = await collect(local)
    assert event.type == "error"
    assert event.message == "no model is set for localhost (model.main)"


async def test_gemini_thought_signature_is_kept_and_echoed_back() -> None:
    signature = {"google": {"thought_signature": "CiQBVKhc7abc"}}
    raw = (
        _chunk(
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "f1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
                ],
            }
        ),
        _chunk({"tool_calls": [{"extra_content": signature}]}),  # a metadata-only delta
        _chunk({}, "stop"),
        b"data: [DONE]\n\n",
    )
    async with ProviderServer() as server:
        server.add(Reply(raw=raw), Reply.answer("done"))
        client = build_client(
            ProviderOptions(model="gemini-3-pro", kind="openai", base_url=server.openai_url),
            deps=ClientDeps(environ={}),
        )
        try:
            events = await collect(client)
            (end,) = [e for e in events if e.type == "tool_call_end"]
            assert (end.id, end.extra) == ("f1", signature)
            follow_up = ModelRequest(
                messages=[
                    Message(role="user", content=[TextPart(text="list")]),
                    Message(
                        role="assistant",
                        content=[
                            ToolUsePart(id=end.id, name=end.name, input=end.input, extra=end.extra)
                        ],
                    ),
                    Message(
                        role="user", content=[ToolResultPart(tool_use_id="f1", content="a.py")]
                    ),
                ]
            )
            assert text_of(await collect(client, follow_up)) == "done"
        finally:
            await client.aclose()
    sent = server.requests[1].json["messages"][1]["tool_calls"][0]
    assert sent["extra_content"] == signature
    assert server.requests[1].rejected is None


async def test_aclose_is_idempotent_and_a_closed_client_is_not_reused() -> None:
    from zengine_jupyter.llm import ProviderClient

    async with ProviderServer() as server:
        server.always(Reply.answer("ok"))
        client = build_client(
            ProviderOptions(model="m", kind="openai", base_url=server.openai_url),
            deps=ClientDeps(environ={}),
        )
        assert isinstance(client, ProviderClient)
        await client.prepare()
        assert text_of(await collect(client)) == "ok"
        await client.aclose()
        await client.aclose()
        with pytest.raises(RuntimeError, match="closed"):
            await collect(client)
    assert len(server.requests) == 1
