"""Item 4 at the catalog level: above DEFER_ABOVE MCP tools only names and summaries go out."""

from __future__ import annotations

import re

from zengine_jupyter.engine.mcp import (
    DEFER_ABOVE,
    LOAD_MCP_TOOLS,
    DeferredTools,
    build_catalog,
    tool_definition,
)
from zengine_jupyter.integrations.mcp import McpTool, qualified_name


def _tools(n: int, server: str = "big") -> list[McpTool]:
    return [
        McpTool(
            server=server,
            name=f"t{i}",
            qualified=qualified_name(server, f"t{i}"),
            description=f"Tool number {i}.\nDetails nobody needs in the summary.",
            input_schema={"type": "object", "properties": {"x": {"type": "integer"}}},
        )
        for i in range(n)
    ]


def test_at_the_limit_every_definition_goes_out() -> None:
    tools = _tools(DEFER_ABOVE)
    view = build_catalog(tools)
    assert not view.deferred
    assert view.reminder is None
    assert [d.name for d in view.definitions] == [t.qualified for t in tools]
    assert view.check_call("mcp__big__t3") is None


def test_above_the_limit_only_names_summaries_and_the_loader() -> None:
    tools = _tools(DEFER_ABOVE + 1)
    view = build_catalog(tools)
    assert view.deferred
    assert [d.name for d in view.definitions] == [LOAD_MCP_TOOLS]
    assert view.reminder is not None
    listed = re.findall(r"^- (\S+): (.*)$", view.reminder, flags=re.MULTILINE)
    assert [name for name, _ in listed] == [t.qualified for t in tools]
    assert all(summary == f"Tool number {i}." for i, (_, summary) in enumerate(listed))
    assert "Details" not in view.reminder
    assert "LoadMcpTools first" not in (view.check_call("mcp__big__t3") or "")
    assert "call LoadMcpTools" in (view.check_call("mcp__big__t3") or "")
    assert "no MCP tool named" in (view.check_call("mcp__big__zzz") or "")
    assert view.check_call("Read") is None  # not an MCP tool: not the catalog's business


def test_loaded_definitions_are_in_the_next_request_and_callable_from_then_on() -> None:
    tools = _tools(60)
    deferred = DeferredTools()
    first = build_catalog(tools, deferred.loaded)
    outcome = deferred.load({"names": ["mcp__big__t7", "mcp__big__t7", "mcp__nope__x"]}, tools)
    assert outcome.loaded == ("mcp__big__t7",)
    assert outcome.unknown == ("mcp__nope__x",)
    assert "next response" in outcome.text()
    assert not outcome.is_error
    assert first.check_call("mcp__big__t7") is not None  # same response: not yet
    second = build_catalog(tools, deferred.loaded)
    assert [d.name for d in second.definitions] == ["mcp__big__t7", LOAD_MCP_TOOLS]
    assert second.definitions[0].input_schema["properties"] == {"x": {"type": "integer"}}
    assert second.check_call("mcp__big__t7") is None
    assert "(loaded)" in (second.reminder or "")
    again = deferred.load({"names": ["mcp__big__t7"]}, tools)
    assert again.already == ("mcp__big__t7",)
    assert deferred.load({"names": ["nope"]}, tools).is_error


def test_a_tool_that_vanished_is_no_longer_sent_even_if_loaded() -> None:
    tools = _tools(50)
    view = build_catalog(tools[:45], {"mcp__big__t49"})
    assert [d.name for d in view.definitions] == [LOAD_MCP_TOOLS]


def test_definitions_are_valid_for_every_provider() -> None:
    tool = McpTool("s", "weird name!", qualified_name("s", "weird name!"), "d", {})
    definition = tool_definition(tool)
    assert definition.name == "mcp__s__weird_name_"
    assert definition.input_schema == {"type": "object", "properties": {}}
