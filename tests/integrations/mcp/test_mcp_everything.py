"""The third-party reference server, @modelcontextprotocol/server-everything (npm), over stdio.

Installed by ``scripts/test`` with ``npm ci --prefix tests/fixtures/npm`` (pinned by the
committed package-lock.json). It speaks the 2025-11-25 handshake protocol.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.integrations.mcp import McpManager, McpServerEntry
from zengine_jupyter.testing.components import in_ci, require_component

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

pytestmark = pytest.mark.slow

NPM_DIR = Path(__file__).parents[2] / "fixtures" / "npm"
SERVER_JS = NPM_DIR / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"


def _server_js() -> Path:
    require_component("node")
    if not SERVER_JS.exists():
        reason = f"server-everything is not installed; run: npm ci --prefix {NPM_DIR}"
        if in_ci():
            pytest.fail(f"CI=true and {reason}", pytrace=False)
        pytest.skip(reason)
    return SERVER_JS


@pytest.fixture
async def everything() -> AsyncIterator[McpManager]:
    node = require_component("node")
    entry = McpServerEntry(
        "everything",
        command=node,
        args=(str(_server_js()), "stdio"),
        disabled_tools=frozenset({"get-env"}),  # it would echo the environment back
    )
    async with McpManager(entry) as manager:
        status = await manager.wait_ready(60)
        assert status.state == "ready", status.reason
        yield manager


async def test_tools(everything: McpManager) -> None:
    assert everything.status.protocol_version == "2025-11-25"
    names = {t.qualified: t.name for t in everything.tools}
    assert names["mcp__everything__get-sum"] == "get-sum"
    assert "mcp__everything__get-env" not in names
    echo = await everything.call_tool("echo", {"message": "hi there"})
    assert echo.text() == "Echo: hi there"
    total = await everything.call_tool("get-sum", {"a": 2, "b": 40})
    assert "42" in total.text()
    image = await everything.call_tool("get-tiny-image", {})
    assert any(block.kind == "image" and block.data for block in image.content)
    bad = await everything.call_tool("get-sum", {"a": "x"})
    assert bad.is_error


async def test_resources(everything: McpManager) -> None:
    resources = await everything.list_resources()
    assert resources, "server-everything lists resources"
    first = resources[0]
    assert first.server == "everything"
    contents = await everything.read_resource(first.uri)
    assert contents[0].uri == first.uri
    assert contents[0].text or contents[0].blob


async def test_prompts(everything: McpManager) -> None:
    prompts = {p.name: p for p in everything.prompts}
    args_prompt = prompts["args-prompt"]
    assert args_prompt.command == "mcp__everything__args-prompt"
    assert [(a.name, a.required) for a in args_prompt.arguments] == [
        ("city", True),
        ("state", False),
    ]
    filled = await everything.get_prompt("args-prompt", {"city": "Lyon"})
    assert "Lyon" in "".join(m.content.text for m in filled.messages)
    simple = await everything.get_prompt("simple-prompt")
    assert simple.messages
