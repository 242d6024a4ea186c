"""A history rebuilt from the session log (the engine's well-formed request) passes the
real APIs' checks in both wire formats, even when the log was left ragged by a crash."""

from __future__ import annotations

import pytest

from zengine_jupyter.engine import build_request
from zengine_jupyter.llm import ClientDeps, ProviderOptions
from zengine_jupyter.protocol import (
    LogRecord,
    MessageRecord,
    ModelRequest,
    RecordedToolCall,
    ThinkingBlock,
    ToolResultRecord,
    message_from_records,
)
from zengine_jupyter.testing import ProviderServer, Reply
from zengine_jupyter.testing.llm import KEY, stream_once, text_of

RAGGED_LOG: list[LogRecord] = [
    MessageRecord(role="user", text="run the tests"),
    MessageRecord(role="user", text="and fix them"),  # two user messages in a row
    MessageRecord(
        role="assistant",
        text="Running.",
        thinking=(ThinkingBlock(text="plan", signature="sig"),),
        tool_calls=(
            RecordedToolCall(id="toolu_a", name="Bash", input={"command": "pytest"}),
            RecordedToolCall(id="toolu_b", name="Read", input={"path": "a.py"}),
        ),
    ),
    ToolResultRecord(tool_call_id="toolu_a", name="Bash", output="1 failed", is_error=True),
    # toolu_b's result was lost in a crash: build_request answers it "interrupted"
    MessageRecord(role="user", text="continue"),
]


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_a_ragged_log_becomes_a_request_every_provider_accepts(wire: str) -> None:
    messages = [
        message_from_records(
            m.role,
            texts=m.texts,
            thinking=m.thinking,
            tool_calls=m.tool_calls,
            tool_results=m.tool_results,
        )
        for m in build_request(RAGGED_LOG)
    ]
    async with ProviderServer(api_key=KEY) as server:
        server.add(Reply.answer("On it."))
        url = server.base_url if wire == "anthropic" else server.openai_url
        events = await stream_once(
            ProviderOptions(model="claude-haiku-4-5", kind=wire, base_url=url, effort="low"),  # type: ignore[arg-type]
            deps=ClientDeps(environ={"ZENGINE_API_KEY": KEY}),
            request=ModelRequest(system="s", messages=messages),
        )
    assert server.requests[0].rejected is None
    assert text_of(events) == "On it."
    sent = server.requests[0].json["messages"]
    if wire == "anthropic":
        results = [b for b in sent[2]["content"] if b["type"] == "tool_result"]
        assert [r["tool_use_id"] for r in results] == ["toolu_a", "toolu_b"]
        assert server.requests[0].json["thinking"]["type"] == "enabled"  # signed thinking kept
    else:
        assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "tool", "user"]
