"""The ModelClient stream contract, checked on the real client (both wire formats, answers
and failures) and on the in-memory fake later parts use."""

from __future__ import annotations

import pytest

from zengine_jupyter.llm import ClientDeps, ProviderOptions
from zengine_jupyter.protocol import Message, ModelRequest, TextPart
from zengine_jupyter.testing import (
    FakeClock,
    FakeModelClient,
    ProviderServer,
    Reply,
    ScriptedToolCall,
    assert_stream_contract,
)
from zengine_jupyter.testing.llm import KEY, collect, stream_once

SCRIPTS = {
    "answer": (
        Reply(thinking=("t",), text=("a", "b"), tool_calls=(ScriptedToolCall("x", {"k": 1}),)),
    ),
    "retried": (Reply.fault(503), Reply.answer("ok")),
    "fallback": (*[Reply.fault(500)] * 5, Reply.answer("ok")),
    "final after text": (Reply(text=("part",), drop="after_text"),),
    "refused": (Reply.fault(400),),
}


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize("name", list(SCRIPTS))
async def test_the_real_client_keeps_the_contract(wire: str, name: str) -> None:
    async with ProviderServer(api_key=KEY) as server:
        server.add(*SCRIPTS[name])
        url = server.base_url if wire == "anthropic" else server.openai_url
        events = await stream_once(
            ProviderOptions(model="m", kind=wire, base_url=url, fallbacks=("f",)),  # type: ignore[arg-type]
            deps=ClientDeps(environ={"ZENGINE_API_KEY": KEY}, sleep=FakeClock().sleep),
        )
    assert_stream_contract(events)


@pytest.mark.parametrize("name", list(SCRIPTS))
async def test_the_fake_client_keeps_the_contract(name: str) -> None:
    fake = FakeModelClient(SCRIPTS[name][-1])
    request = ModelRequest(messages=[Message(role="user", content=[TextPart(text="hi")])])
    events = await collect(fake, request)
    assert_stream_contract(events)
    assert fake.requests == [request]
    assert (await collect(fake))[-1].type == "error"  # script exhausted: says so
    await fake.aclose()
    assert fake.closed


def test_the_contract_check_bites() -> None:
    from zengine_jupyter.protocol import ErrorEvent, RetryEvent, StopEvent, TextDelta

    with pytest.raises(AssertionError, match="ends with stop or error"):
        assert_stream_contract([TextDelta(text="x")])
    with pytest.raises(AssertionError, match="no retry or fallback once text"):
        assert_stream_contract(
            [
                TextDelta(text="x"),
                RetryEvent(model="m", attempt=2, attempts=5, wait_s=1, reason="r"),
                StopEvent(reason="end_turn"),
            ]
        )
    with pytest.raises(AssertionError, match="after_text"):
        assert_stream_contract([TextDelta(text="x"), ErrorEvent(message="lost")])
