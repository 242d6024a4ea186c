"""Acceptance 1: the official SDKs parse the local provider's streams without error.

So the fake is faithful to the real wire formats, not only to our own parser.
"""

from __future__ import annotations

import anthropic
import openai
import pytest

from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall, ScriptedUsage

KEY = "sk-ant-test-0123456789abcdef"
REPLY = Reply(
    thinking=("Let me ", "think."),
    text=("Checking ", "the weather"),
    tool_calls=(
        ScriptedToolCall("get_weather", {"location": "San Francisco, CA"}, pieces=3),
        ScriptedToolCall("get_time", {"zone": "PST"}),
    ),
    usage=ScriptedUsage(input=25, output=89, cache_read=100, cache_write=1200),
)


async def test_anthropic_sdk_parses_every_event_of_the_stream() -> None:
    async with ProviderServer(api_key=KEY) as server:
        server.add(REPLY)
        client = anthropic.AsyncAnthropic(api_key=KEY, base_url=server.base_url, max_retries=0)
        try:
            async with client.messages.stream(
                model="claude-sonnet-4-6",
                max_tokens=20000,
                thinking={"type": "enabled", "budget_tokens": 2048},
                messages=[{"role": "user", "content": "Weather in SF?"}],
                tools=[
                    {"name": "get_weather", "input_schema": {"type": "object"}},
                    {"name": "get_time", "input_schema": {"type": "object"}},
                ],
            ) as stream:
                kinds = [event.type async for event in stream]
                message = await stream.get_final_message()
        finally:
            await client.close()
    assert kinds[-1] == "message_stop"
    assert {"thinking", "signature", "text", "input_json"} <= set(kinds)
    assert [b.type for b in message.content] == ["thinking", "text", "tool_use", "tool_use"]
    assert message.content[0].thinking == "Let me think."  # type: ignore[union-attr]
    assert message.content[0].signature  # type: ignore[union-attr]
    assert message.content[1].text == "Checking the weather"  # type: ignore[union-attr]
    assert message.content[2].input == {"location": "San Francisco, CA"}  # type: ignore[union-attr]
    assert message.content[3].name == "get_time"  # type: ignore[union-attr]
    assert message.stop_reason == "tool_use"
    assert message.usage.input_tokens == 25
    assert message.usage.output_tokens == 89
    assert message.usage.cache_read_input_tokens == 100
    assert message.usage.cache_creation_input_tokens == 1200
    # the SDK 2.x sends its key as a Bearer token and its own API version; both accepted
    sent = server.requests[0]
    assert sent.rejected is None
    assert sent.headers["anthropic-version"]


async def test_openai_sdk_parses_chunks_tool_calls_and_final_usage() -> None:
    async with ProviderServer(api_key=KEY) as server:
        server.add(REPLY)
        client = openai.AsyncOpenAI(api_key=KEY, base_url=server.openai_url, max_retries=0)
        try:
            async with client.chat.completions.stream(
                model="gpt-5.4",
                messages=[{"role": "user", "content": "Weather in SF?"}],
                tools=[
                    {"type": "function", "function": {"name": "get_weather", "parameters": {}}},
                    {"type": "function", "function": {"name": "get_time", "parameters": {}}},
                ],
                stream_options={"include_usage": True},
            ) as stream:
                async for _ in stream:
                    pass
                completion = await stream.get_final_completion()
        finally:
            await client.close()
    choice = completion.choices[0]
    assert choice.message.content == "Checking the weather"
    assert choice.finish_reason == "tool_calls"
    calls = choice.message.tool_calls or []
    assert [c.function.name for c in calls] == ["get_weather", "get_time"]
    assert calls[0].function.arguments == '{"location": "San Francisco, CA"}'
    assert completion.usage is not None
    assert completion.usage.prompt_tokens == 25 + 100 + 1200
    assert completion.usage.completion_tokens == 89
    assert completion.usage.prompt_tokens_details is not None
    assert completion.usage.prompt_tokens_details.cached_tokens == 100
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


async def test_sdks_raise_their_own_errors_on_the_fakes_error_bodies() -> None:
    async with ProviderServer(api_key=KEY) as server:
        server.add(Reply.fault(529), Reply.fault(429, retry_after=1))
        ac = anthropic.AsyncAnthropic(api_key=KEY, base_url=server.base_url, max_retries=0)
        oc = openai.AsyncOpenAI(api_key=KEY, base_url=server.openai_url, max_retries=0)
        try:
            with pytest.raises(anthropic.APIStatusError) as overloaded:
                await ac.messages.create(
                    model="m",
                    max_tokens=10,
                    messages=[{"role": "user", "content": "x"}],
                    stream=True,
                )
            with pytest.raises(openai.RateLimitError) as limited:
                await oc.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "x"}], stream=True
                )
            with pytest.raises(
                openai.BadRequestError, match="preceeding message with 'tool_calls'"
            ):
                await oc.chat.completions.create(
                    model="m",
                    messages=[
                        {"role": "user", "content": "x"},
                        {"role": "tool", "tool_call_id": "call_1", "content": "r"},
                    ],
                    stream=True,
                )
        finally:
            await ac.close()
            await oc.close()
    assert overloaded.value.status_code == 529
    assert "overloaded_error" in str(overloaded.value.body)
    assert limited.value.response.headers["retry-after"] == "1"
