"""Prompts as slash commands: argument parsing (pure) and a real round trip through the hub."""

from __future__ import annotations

import pytest

from zengine_jupyter.engine.mcp import McpHub, prompt_arguments, run_prompt_command
from zengine_jupyter.integrations.mcp import McpPrompt, McpPromptArgument
from zengine_jupyter.protocol import McpRequestError
from zengine_jupyter.testing.mcp_server import stdio_entry

REVIEW = McpPrompt(
    server="s",
    name="review",
    command="mcp__s__review",
    arguments=(McpPromptArgument("code", required=True), McpPromptArgument("focus")),
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("x=1", {"code": "x=1"}),
        ("'x = 1' style", {"code": "x = 1", "focus": "style"}),
        ("focus=speed 'a + b'", {"focus": "speed", "code": "a + b"}),
        ("code=y focus=naming", {"code": "y", "focus": "naming"}),
        ("one two three", {"code": "one", "focus": "two three"}),
    ],
)
def test_named_and_positional_arguments(raw: str, expected: dict[str, str]) -> None:
    assert prompt_arguments(REVIEW, raw) == expected


def test_missing_required_argument_shows_the_usage() -> None:
    with pytest.raises(McpRequestError, match=r"/mcp__s__review needs code") as info:
        prompt_arguments(REVIEW, "focus=style")
    assert info.value.hint == "usage: /mcp__s__review code [focus]"
    bare = McpPrompt(server="s", name="p", command="mcp__s__p")
    assert prompt_arguments(bare, "") == {}
    with pytest.raises(McpRequestError, match="takes no more arguments"):
        prompt_arguments(bare, "extra")
    with pytest.raises(McpRequestError, match="cannot read its arguments"):
        prompt_arguments(REVIEW, "'unclosed")


@pytest.mark.slow
async def test_prompt_command_round_trip() -> None:
    hub = McpHub()
    try:
        hub.start([(stdio_entry("fx"), "user")], trusted=True)
        await hub.wait_settled(30)
        text = await run_prompt_command(hub, "mcp__fx__review", "'print(1)' clarity")
        assert text == "Please review this code for clarity:\nprint(1)"
        with pytest.raises(McpRequestError, match="no MCP prompt command /mcp__fx__nope"):
            await run_prompt_command(hub, "mcp__fx__nope", "")
    finally:
        await hub.aclose()
