"""The local provider server checks requests the way the real APIs do."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from zengine_jupyter.testing import ProviderServer, Reply
from zengine_jupyter.testing.llm import ask

KEY = "sk-server-test-0000000000"
A_HEADERS = {"anthropic-version": "2023-06-01", "x-api-key": KEY}
O_HEADERS = {"authorization": f"Bearer {KEY}"}


def _user(text: str = "hi") -> dict[str, Any]:
    return {"role": "user", "content": text}


def _a(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 2000, "stream": True, "messages": messages, **extra}


TOOL_USE = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "toolu_1", "name": "t", "input": {}}],
}
ANTHROPIC_BAD = [
    (
        _a([_user(), TOOL_USE, _user("next")]),
        "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1",
    ),
    (
        _a(
            [
                _user(),
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "r"}],
                },
            ]
        ),
        "unexpected `tool_use_id` found in `tool_result` blocks: toolu_9",
    ),
    (
        _a(
            [
                _user(),
                TOOL_USE,
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "x"},
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "r"},
                    ],
                },
            ]
        ),
        "`tool_result` blocks must come first",
    ),
    (_a([_user(), {"role": "system", "content": "x"}]), "messages.1.role"),
    (
        _a([{"role": "user", "content": [{"type": "text", "text": ""}]}]),
        "text content blocks must be non-empty",
    ),
    (
        _a([_user()], thinking={"type": "enabled", "budget_tokens": 4000}),
        "`max_tokens` must be greater than `thinking.budget_tokens`",
    ),
    ({"model": "m", "messages": [_user()]}, "max_tokens: Field required"),
]


@pytest.mark.parametrize(("body", "message"), ANTHROPIC_BAD)
async def test_anthropic_rejections_carry_the_real_messages(
    body: dict[str, Any], message: str
) -> None:
    async with ProviderServer(api_key=KEY) as server, httpx.AsyncClient() as http:
        server.always(Reply.answer("never"))
        resp = await http.post(f"{server.base_url}/v1/messages", json=body, headers=A_HEADERS)
    assert resp.status_code == 400
    error = resp.json()
    assert error["type"] == "error"
    assert error["error"]["type"] == "invalid_request_error"
    assert message in error["error"]["message"]
    assert server.requests[0].rejected == error["error"]["message"]


async def test_anthropic_version_header_and_key_are_required() -> None:
    async with ProviderServer(api_key=KEY) as server, httpx.AsyncClient() as http:
        url = f"{server.base_url}/v1/messages"
        no_version = await http.post(url, json=_a([_user()]), headers={"x-api-key": KEY})
        wrong_key = await http.post(
            url, json=_a([_user()]), headers={**A_HEADERS, "x-api-key": "sk-wrong-1"}
        )
        v2 = await http.post(
            url,
            json=_a([_user()], temperature=0.5),
            headers={**A_HEADERS, "anthropic-version": "2026-10-21"},
        )
    assert no_version.status_code == 400
    assert "anthropic-version" in no_version.json()["error"]["message"]
    assert wrong_key.status_code == 401
    assert wrong_key.json()["error"]["type"] == "authentication_error"
    assert v2.status_code == 400
    assert "temperature" in v2.json()["error"]["message"]


OPENAI_BAD = [
    (
        [_user(), {"role": "tool", "tool_call_id": "call_1", "content": "r"}],
        "must be a response to a preceeding message with 'tool_calls'",
        "messages.[1].role",
    ),
    (
        [
            _user(),
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "t", "arguments": "{}"},
                    }
                ],
            },
            _user(),
        ],
        "The following tool_call_ids did not have response messages: call_1",
        "messages.[2].role",
    ),
    ([{"role": "robot", "content": "x"}], "Invalid value: 'robot'", "messages.[0].role"),
]


@pytest.mark.parametrize(("messages", "message", "param"), OPENAI_BAD)
async def test_openai_rejections_carry_the_real_messages(
    messages: list[dict[str, Any]], message: str, param: str
) -> None:
    async with ProviderServer(api_key=KEY) as server, httpx.AsyncClient() as http:
        resp = await http.post(
            f"{server.openai_url}/chat/completions",
            json={"model": "m", "messages": messages, "stream": True},
            headers=O_HEADERS,
        )
    assert resp.status_code == 400
    assert message in resp.json()["error"]["message"]
    assert resp.json()["error"]["type"] == "invalid_request_error"


async def test_openai_wrong_key_is_401_with_the_key_masked() -> None:
    async with ProviderServer(api_key=KEY) as server, httpx.AsyncClient() as http:
        resp = await http.post(
            f"{server.openai_url}/chat/completions",
            json={"model": "m", "messages": [_user()], "stream": True},
            headers={"authorization": "Bearer sk-wrong-key-abcd"},
        )
    assert resp.status_code == 401
    message = resp.json()["error"]["message"]
    assert message.startswith("Incorrect API key provided: sk-***")
    assert "sk-wrong-key-abcd" not in message


async def test_other_paths_files_and_an_exhausted_script() -> None:
    async with ProviderServer() as server, httpx.AsyncClient() as http:
        server.files["/api.json"] = b"{}"
        assert (await http.get(f"{server.base_url}/api.json")).content == b"{}"
        assert (await http.get(f"{server.base_url}/nothing")).status_code == 404
        assert (await http.post(f"{server.base_url}/v1/other", json={})).status_code == 404
        resp = await http.post(
            f"{server.openai_url}/chat/completions",
            json={"model": "m", "messages": [_user()], "stream": True},
        )
    assert resp.status_code == 400
    assert "no scripted reply left" in resp.json()["error"]["message"]
    assert [r.path for r in server.requests] == [
        "/api.json",
        "/nothing",
        "/v1/other",
        "/v1/chat/completions",
    ]


async def test_a_slow_answer_arrives_event_by_event_and_can_be_abandoned() -> None:
    import asyncio
    import time

    from zengine_jupyter.llm import ClientDeps, ProviderOptions, build_client

    async with ProviderServer() as server:
        server.add(Reply(text=tuple(f"w{i} " for i in range(50)), event_delay_s=0.02))
        client = build_client(
            ProviderOptions(model="m", kind="anthropic", base_url=server.base_url),
            deps=ClientDeps(environ={}),
        )
        seen: list[float] = []
        start = time.monotonic()
        try:
            stream = client.stream(ask())
            async for event in stream:
                if event.type == "text":
                    seen.append(time.monotonic() - start)
                if len(seen) == 3:
                    break  # the user interrupts the turn
            await stream.aclose()  # type: ignore[attr-defined]
        finally:
            await client.aclose()
        await asyncio.sleep(0)
    assert len(seen) == 3
    assert seen[2] - seen[0] >= 0.03  # spaced out, not one burst


async def test_a_non_streaming_request_is_refused_plainly() -> None:
    async with ProviderServer() as server, httpx.AsyncClient() as http:
        server.always(Reply.answer("x"))
        resp = await http.post(
            f"{server.openai_url}/chat/completions", json={"model": "m", "messages": [_user()]}
        )
    assert resp.status_code == 400
    assert "only streaming requests" in resp.json()["error"]["message"]
