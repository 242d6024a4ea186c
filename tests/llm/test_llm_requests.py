"""What goes on the wire: prompt caching, thinking by effort, reasoning effort, tool history.

The conversation tests send a full tool-use history through the local server, whose checks
are the real APIs' (tool-result pairing, order, roles), in both wire formats.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.llm import (
    Catalog,
    ClientDeps,
    ModelInfo,
    ProviderOptions,
    detect_endpoint,
)
from zengine_jupyter.llm._endpoint import CallSpec
from zengine_jupyter.llm.anthropic import build_body as anthropic_body
from zengine_jupyter.llm.openai import build_body as openai_body
from zengine_jupyter.protocol import (
    ImagePart,
    Message,
    ModelRequest,
    TextPart,
    ThinkingPart,
    ToolResultPart,
    ToolSpec,
    ToolUsePart,
)
from zengine_jupyter.testing import ProviderServer, Reply
from zengine_jupyter.testing.llm import KEY, stream_once, text_of

SAMPLE = Path(__file__).parents[1] / "fixtures" / "llm" / "models-dev-sample.json"
PNG = "iVBORw0KGgo="
TOOLS = [
    ToolSpec(name="read_file", description="Read a file", input_schema={"type": "object"}),
    ToolSpec(name="run", description="Run a command", input_schema={"type": "object"}),
]
HISTORY = ModelRequest(
    system="You are a coding agent.",
    tools=TOOLS,
    messages=[
        Message(
            role="user",
            content=[TextPart(text="Fix the bug"), ImagePart(media_type="image/png", data=PNG)],
        ),
        Message(
            role="assistant",
            content=[
                ThinkingPart(thinking="Look first.", signature="sig=="),
                TextPart(text="Reading."),
                ToolUsePart(id="toolu_1", name="read_file", input={"path": "a.py"}),
                ToolUsePart(id="toolu_2", name="run", input={"cmd": "pytest"}),
            ],
        ),
        Message(
            role="user",
            content=[
                TextPart(text="(the results)"),  # out of order on purpose: results go first
                ToolResultPart(tool_use_id="toolu_1", content="x = 1"),
                ToolResultPart(
                    tool_use_id="toolu_2",
                    content=[
                        TextPart(text="1 failed"),
                        ImagePart(media_type="image/png", data=PNG),
                    ],
                    is_error=True,
                ),
            ],
        ),
    ],
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.from_files(SAMPLE, SAMPLE.with_name("absent.json"))


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_a_tool_use_history_passes_the_real_checks(wire: str, catalog: Catalog) -> None:
    async with ProviderServer(api_key=KEY) as server:
        server.add(Reply.answer("Fixed."))
        url = server.base_url if wire == "anthropic" else server.openai_url
        events = await stream_once(
            ProviderOptions(model="claude-haiku-4-5", kind=wire, base_url=url),  # type: ignore[arg-type]
            deps=ClientDeps(environ={"ZENGINE_API_KEY": KEY}, catalog=catalog),
            request=HISTORY,
        )
    assert server.requests[0].rejected is None
    assert text_of(events) == "Fixed."


def test_anthropic_caches_the_stable_prefix_and_orders_tool_results_first() -> None:
    body = anthropic_body(HISTORY, CallSpec("claude-haiku-4-5", "medium", 4000))
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in body["tools"][0]
    last = body["messages"][-1]["content"]
    assert [b["type"] for b in last] == ["tool_result", "tool_result", "text"]
    assert last[-1]["cache_control"] == {"type": "ephemeral"}
    assert last[1]["is_error"] is True
    assert body["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "Look first.",
        "signature": "sig==",
    }
    assert body["messages"][0]["content"][1]["source"] == {
        "type": "base64",
        "media_type": "image/png",
        "data": PNG,
    }


@pytest.mark.parametrize(
    ("effort", "budget"), [("low", 2048), ("medium", 8192), ("high", 16384), ("max", 32000)]
)
def test_anthropic_thinking_budget_follows_effort(
    effort: Any, budget: int, catalog: Catalog
) -> None:
    info = catalog.model("claude-haiku-4-5")  # takes a budget, not an effort
    body = anthropic_body(HISTORY, CallSpec("claude-haiku-4-5", effort, 16_000, info))
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert body["max_tokens"] == 16_000 + budget  # the answer keeps its own room
    assert "output_config" not in body


def test_anthropic_budget_stays_below_the_output_limit() -> None:
    info = ModelInfo(id="claude-haiku-4-5", output=20_000, thinking_budget=True, reasoning=True)
    body = anthropic_body(HISTORY, CallSpec("claude-haiku-4-5", "max", 16_000, info))
    assert body["max_tokens"] == 20_000
    assert body["thinking"]["budget_tokens"] == 20_000 - 1024


@pytest.mark.parametrize(
    ("model", "effort", "sent"),
    [
        ("claude-opus-4-8", "max", "max"),
        ("claude-sonnet-5", "low", "low"),
        ("claude-sonnet-4-6", "high", "high"),
    ],
)
def test_anthropic_adaptive_models_get_an_effort(
    model: str, effort: Any, sent: str, catalog: Catalog
) -> None:
    body = anthropic_body(HISTORY, CallSpec(model, effort, 8000, catalog.model(model)))
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": sent}
    assert body["max_tokens"] == 8000
    # without the catalog the name decides
    assert anthropic_body(HISTORY, CallSpec(model, effort, 8000))["thinking"] == {
        "type": "adaptive"
    }


def test_no_thinking_for_a_model_the_catalog_says_cannot_reason() -> None:
    info = ModelInfo(id="claude-3-haiku", reasoning=False)
    assert "thinking" not in anthropic_body(HISTORY, CallSpec("claude-3-haiku", "max", 8000, info))


def test_openai_body_tool_messages_images_and_reasoning_passback(catalog: Catalog) -> None:
    local = detect_endpoint("openai", "http://localhost:11434/v1", "m")
    body = openai_body(HISTORY, CallSpec("qwen3", "medium", 4000), local)
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "tool", "user"]
    assistant = body["messages"][2]
    assert assistant["tool_calls"][1]["function"] == {
        "name": "run",
        "arguments": '{"cmd": "pytest"}',
    }
    assert assistant["reasoning_content"] == "Look first."  # DeepSeek/Kimi need it back
    assert body["messages"][4]["content"] == "Error: 1 failed"
    last = body["messages"][5]["content"]
    assert last[0] == {"type": "text", "text": "(the results)"}
    assert last[1]["image_url"]["url"] == f"data:image/png;base64,{PNG}"
    assert body["max_tokens"] == 4000
    assert body["stream_options"] == {"include_usage": True}
    assert "reasoning_effort" not in body  # unknown model: not sent


@pytest.mark.parametrize(
    ("model", "effort", "sent"),
    [
        ("gpt-5", "max", "high"),
        ("gpt-5", "low", "low"),
        ("gpt-5.5", "max", "xhigh"),
        ("deepseek-v4-pro", "max", "max"),
        ("gpt-4.1", "high", None),
    ],
)
def test_openai_reasoning_effort_maps_to_what_the_model_accepts(
    model: str, effort: Any, sent: str | None, catalog: Catalog
) -> None:
    official = detect_endpoint("auto", "https://api.openai.com/v1", model)
    body = openai_body(HISTORY, CallSpec(model, effort, 4000, catalog.model(model)), official)
    assert body.get("reasoning_effort") == sent
    assert body["max_completion_tokens"] == 4000  # OpenAI's reasoning models reject max_tokens
    # thinking goes back only where the catalog says the model needs it (DeepSeek)
    assert ("reasoning_content" in body["messages"][2]) is model.startswith("deepseek")


def test_unsigned_thinking_is_left_out_and_turns_thinking_off_for_a_tool_loop() -> None:
    foreign = ModelRequest(
        messages=[
            Message(role="user", content=[TextPart(text="go")]),
            Message(
                role="assistant",
                content=[
                    ThinkingPart(thinking="from another provider"),  # no signature
                    ToolUsePart(id="toolu_1", name="run", input={}),
                ],
            ),
            Message(role="user", content=[ToolResultPart(tool_use_id="toolu_1", content="ok")]),
        ]
    )
    body = anthropic_body(foreign, CallSpec("claude-haiku-4-5", "high", 4000))
    assert [b["type"] for b in body["messages"][1]["content"]] == ["tool_use"]
    assert "thinking" not in body
    assert body["max_tokens"] == 4000
    signed = anthropic_body(HISTORY, CallSpec("claude-haiku-4-5", "high", 4000))
    assert (
        signed["thinking"]["type"] == "enabled"
    )  # HISTORY's tool turn starts with signed thinking


def test_unset_effort_sends_no_thinking_or_effort(catalog: Catalog) -> None:
    anthropic = anthropic_body(
        HISTORY, CallSpec("claude-sonnet-4-6", None, 4000, catalog.model("claude-sonnet-4-6"))
    )
    assert "thinking" not in anthropic
    assert "output_config" not in anthropic
    assert anthropic["max_tokens"] == 4000
    official = detect_endpoint("openai", None, "gpt-5")
    assert "reasoning_effort" not in openai_body(
        HISTORY, CallSpec("gpt-5", None, 4000, catalog.model("gpt-5")), official
    )
