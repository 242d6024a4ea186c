"""McpHub with real fixture servers: background start, trust, notice, reconcile (items 1, 4, 6)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.engine.mcp import (
    LOAD_MCP_TOOLS,
    DeferredTools,
    McpHub,
    McpOrigin,
    build_catalog,
    list_resources_text,
    read_resource_text,
    render_notice,
    render_table,
)
from zengine_jupyter.integrations.mcp import McpServerEntry
from zengine_jupyter.protocol import McpRequestError
from zengine_jupyter.testing import process_gone
from zengine_jupyter.testing.mcp_server import BASE_TOOLS, fixture_children, stdio_entry

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

pytestmark = pytest.mark.slow


@pytest.fixture
async def hub() -> AsyncIterator[McpHub]:
    hub = McpHub()
    try:
        yield hub
    finally:
        await hub.aclose()
        await hub.aclose()  # idempotent
    assert fixture_children() == [], "a server process outlived the hub"


async def _pid(hub: McpHub, server: str) -> int:
    result = await hub.call_tool(f"mcp__{server}__pid")
    assert result.structured is not None
    return int(result.structured["result"])


async def test_start_returns_at_once_and_the_notice_names_ready_and_failed(hub: McpHub) -> None:
    servers: list[tuple[McpServerEntry, McpOrigin]] = [
        (stdio_entry("a"), "user"),
        (stdio_entry("broken", "--fail-start"), "user"),
        (stdio_entry("proj"), "project"),
        (McpServerEntry("off", command="true", enabled=False), "user"),
    ]
    hub.start(servers, trusted=False)
    assert {s.name: s.state for s in hub.statuses()} == {
        "a": "starting",
        "broken": "starting",
        "proj": "withheld",
        "off": "disabled",
    }
    statuses = await hub.wait_settled(30)
    states = {s.name: s.state for s in statuses}
    assert states == {"a": "ready", "broken": "failed", "proj": "withheld", "off": "disabled"}
    notice = render_notice(statuses) or ""
    assert f"ready: a ({BASE_TOOLS} tools)" in notice
    assert "broken: the program exited during start-up" in notice
    assert "trust this workspace: proj" in notice
    table = render_table(statuses)
    assert "project" in table
    assert {t.server for t in hub.tools()} == {"a"}  # nothing from the withheld server
    assert (await hub.call_tool("mcp__a__add", {"a": 2, "b": 3})).text() == "5"
    with pytest.raises(McpRequestError, match="no MCP tool named mcp__proj__echo"):
        await hub.call_tool("mcp__proj__echo", {"text": "x"})


async def test_reload_restarts_only_the_changed_server(hub: McpHub) -> None:
    a, b, p = stdio_entry("a"), stdio_entry("b"), stdio_entry("p")
    hub.start([(a, "user"), (b, "user"), (p, "project")], trusted=False)
    await hub.wait_settled(30)
    a_pid, b_pid = await _pid(hub, "a"), await _pid(hub, "b")

    a_changed = stdio_entry("a", disabled_tools=frozenset({"add"}))
    report = await hub.reconcile([(a_changed, "user"), (b, "user"), (p, "project")], trusted=True)
    assert (report.restarted, report.started, report.unchanged) == (("a",), ("p",), ("b",))
    await hub.wait_settled(30)
    assert await _pid(hub, "b") == b_pid  # untouched: same process
    assert await _pid(hub, "a") != a_pid  # restarted
    assert process_gone(a_pid), "the old process of the restarted server was not reaped"
    assert "mcp__a__add" not in {t.qualified for t in hub.tools()}
    assert await _pid(hub, "p") > 0

    report = await hub.reconcile([(a_changed, "user"), (p, "project")], trusted=False)
    assert (report.stopped, report.unchanged) == (("b", "p"), ("a",))
    assert process_gone(b_pid)
    assert {s.name: s.state for s in hub.statuses()} == {"a": "ready", "p": "withheld"}


async def test_sixty_tools_are_deferred_then_loaded_and_called(hub: McpHub) -> None:
    hub.start([(stdio_entry("big", "--tools", str(60 - BASE_TOOLS)), "user")], trusted=True)
    await hub.wait_settled(30)
    tools = hub.tools()
    assert len(tools) == 60
    deferred = DeferredTools()

    first = build_catalog(tools, deferred.loaded)  # the first request
    assert [d.name for d in first.definitions] == [LOAD_MCP_TOOLS]
    assert first.reminder is not None
    assert "- mcp__big__tool_007: Numbered fixture tool 7." in first.reminder
    assert "second line" not in first.reminder
    assert first.check_call("mcp__big__tool_007") is not None

    outcome = deferred.load({"names": ["mcp__big__tool_007"]}, hub.tools())  # LoadMcpTools
    assert outcome.loaded == ("mcp__big__tool_007",)
    second = build_catalog(hub.tools(), deferred.loaded)  # the next request
    assert [d.name for d in second.definitions] == ["mcp__big__tool_007", LOAD_MCP_TOOLS]
    assert second.definitions[0].input_schema["properties"]["x"]["type"] == "integer"
    assert second.check_call("mcp__big__tool_007") is None
    result = await hub.call_tool("mcp__big__tool_007", {"x": 3})
    assert (result.text(), result.is_error) == ("tool_007:3", False)


async def test_resources_tools_and_prompts_through_the_hub(hub: McpHub) -> None:
    hub.start([(stdio_entry("a"), "user")], trusted=True)
    await hub.wait_settled(30)
    listing = await list_resources_text(hub, {})
    assert "a  fixture://greeting  greeting (text/plain): A fixed greeting." in listing
    text = await read_resource_text(hub, {"server": "a", "uri": "fixture://greeting"})
    assert text == "hello from the fixture"
    assert [p.command for p in hub.prompts()] == ["mcp__a__review"]


async def test_hub_version_moves_when_a_server_adds_a_tool(hub: McpHub) -> None:
    hub.start([(stdio_entry("a"), "user")], trusted=True)
    await hub.wait_settled(30)
    seen: list[int] = []
    unsubscribe = hub.subscribe(lambda: seen.append(hub.version))
    await hub.call_tool("mcp__a__add_tool", {"tool": "fresh", "announce": "listen"})
    for _ in range(200):
        if hub.tool("mcp__a__fresh") is not None:
            break
        await asyncio.sleep(0.02)
    assert hub.tool("mcp__a__fresh") is not None
    assert seen
    unsubscribe()
