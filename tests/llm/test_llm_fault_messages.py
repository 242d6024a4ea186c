"""Issue 19.9: what the user reads after a provider fault is true and says what happened."""

from __future__ import annotations

import json

import pytest

from zengine_jupyter.llm import ClientDeps, ProviderOptions
from zengine_jupyter.testing import FakeClock, ProviderServer, RecordingServer, Reply
from zengine_jupyter.testing.llm import KEY, stream_once, text_of

ENV = {"ZENGINE_API_KEY": KEY}
WIRES = ["anthropic", "openai"]


@pytest.mark.parametrize("wire", WIRES)
async def test_a_connection_lost_after_text_does_not_claim_it_is_retried(wire: str) -> None:
    """Fault: the stream is cut after some text. It is rightly not retried (that could repeat
    the answer), yet the message said "it is retried automatically"."""
    clock = FakeClock()
    async with ProviderServer(api_key=KEY) as server:
        server.add(Reply(text=("partial ", "answer"), drop="after_text"))
        url = server.base_url if wire == "anthropic" else server.openai_url
        options = ProviderOptions(model="m", kind=wire, base_url=url)  # type: ignore[arg-type]
        events = await stream_once(options, deps=ClientDeps(environ=ENV, sleep=clock.sleep))
    assert text_of(events) == "partial answer"
    error = events[-1]
    assert error.type == "error"
    assert error.after_text
    shown = f"{error.message} {error.hint}"
    assert "retried automatically" not in shown
    assert "not retried" in shown


@pytest.mark.parametrize("wire", WIRES)
async def test_a_server_that_answers_json_instead_of_a_stream_is_named_and_not_retried(
    wire: str,
) -> None:
    """Fault: a server ignores `stream: true` and answers a plain JSON completion (200,
    application/json). It was retried five times and reported as a cut connection."""
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}],
        "note": f"key {KEY}",
    }
    clock = FakeClock()
    with RecordingServer(reply=json.dumps(completion).encode()) as server:
        url = server.url + ("/v1" if wire == "openai" else "")
        options = ProviderOptions(model="m", kind=wire, base_url=url)  # type: ignore[arg-type]
        events = await stream_once(options, deps=ClientDeps(environ=ENV, sleep=clock.sleep))
        assert len(server.requests) == 1, "a plain JSON answer is not a passing fault"
    assert clock.waits == []
    error = events[-1]
    assert error.type == "error"
    assert "JSON instead of a stream" in error.message
    assert "chat.completion" in error.message  # what it sent, in part
    assert KEY not in error.message
    assert "connection" not in error.message


async def test_an_event_stream_mislabelled_as_json_is_still_read() -> None:
    """A compatible server that streams SSE under `Content-Type: application/json` keeps
    working: only a body that is not an event stream is refused."""
    head = {"id": "c", "object": "chat.completion.chunk", "model": "m"}
    chunk = {**head, "choices": [{"index": 0, "delta": {"content": "streamed"}}]}
    done = {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    body = f"data: {json.dumps(chunk)}\n\ndata: {json.dumps(done)}\n\ndata: [DONE]\n\n"
    with RecordingServer(reply=body.encode()) as server:
        options = ProviderOptions(model="m", kind="openai", base_url=server.url + "/v1")
        events = await stream_once(options, deps=ClientDeps(environ=ENV))
    assert text_of(events) == "streamed"
    assert events[-1].type == "stop"
