"""The start-up notice and the /mcp table, from statuses."""

from __future__ import annotations

from zengine_jupyter.engine.mcp import render_notice, render_table
from zengine_jupyter.protocol import McpServerStatus


def _statuses() -> list[McpServerStatus]:
    return [
        McpServerStatus(name="gh", transport="http", state="ready", tool_count=12, origin="user"),
        McpServerStatus(
            name="db", transport="stdio", state="failed", reason="the program was not found"
        ),
        McpServerStatus(name="p", transport="stdio", state="withheld", origin="project"),
        McpServerStatus(name="off", transport="stdio", state="disabled"),
    ]


def test_notice_lists_ready_and_failed_with_reasons() -> None:
    notice = render_notice(_statuses())
    assert notice is not None
    assert "ready: gh (12 tools)" in notice
    assert "failed: db: the program was not found" in notice
    assert "trust this workspace: p" in notice
    assert "off" not in notice
    assert render_notice([]) is None


def test_table_has_one_row_per_server() -> None:
    table = render_table(_statuses()).splitlines()
    assert table[0].split() == ["server", "transport", "from", "state", "tools", "details"]
    assert table[1].split()[:5] == ["gh", "http", "user", "ready", "12"]
    assert table[2].split()[:5] == ["db", "stdio", "-", "failed", "-"]
    assert table[2].endswith("the program was not found")
    assert len(table) == 5
    assert "No MCP servers" in render_table([])
