"""Item 3 at the gate level: MCP tool names from our naming, decided by the real PermissionGate.

The turn loop that sends calls through the gate comes with the engine issue; this pins that
the names we produce are the ones the gate's rules expect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.integrations.mcp import qualified_name
from zengine_jupyter.policy import CallView, PermissionGate, PermissionPolicy

if TYPE_CHECKING:
    from pathlib import Path


def _decide(tmp_path: Path, server: str, tool: str, **policy: object) -> str:
    gate = PermissionGate(tmp_path, PermissionPolicy.from_lists(**policy))  # type: ignore[arg-type]
    return gate.decide(CallView(tool=qualified_name(server, tool), kind="mcp")).action


def test_mcp_tools_ask_by_default_even_read_only_ones(tmp_path: Path) -> None:
    assert _decide(tmp_path, "github", "list_issues") == "ask"
    assert _decide(tmp_path, "github", "list_issues", mode="accept_edits") == "ask"
    assert _decide(tmp_path, "github", "list_issues", mode="plan") == "deny"


def test_a_server_rule_allows_all_its_tools_and_only_its_tools(tmp_path: Path) -> None:
    allow = ["mcp__github"]
    assert _decide(tmp_path, "github", "create_issue", allow=allow) == "allow"
    assert _decide(tmp_path, "github", "delete.repo", allow=allow) == "allow"
    assert _decide(tmp_path, "github2", "create_issue", allow=allow) == "ask"
    assert _decide(tmp_path, "gitlab", "create_issue", allow=allow) == "ask"


@pytest.mark.parametrize("server", ["my.server", "my server"])
def test_rules_use_the_sanitised_server_name(tmp_path: Path, server: str) -> None:
    assert _decide(tmp_path, server, "run", allow=["mcp__my_server"]) == "allow"


def test_a_tool_rule_allows_one_tool(tmp_path: Path) -> None:
    allow = ["mcp__github__create_issue"]
    assert _decide(tmp_path, "github", "create_issue", allow=allow) == "allow"
    assert _decide(tmp_path, "github", "create_issue_comment", allow=allow) == "ask"
    assert _decide(tmp_path, "github", "delete_repo", allow=allow) == "ask"
    deny = ["mcp__github__delete_repo"]
    assert _decide(tmp_path, "github", "delete_repo", allow=["mcp__github"], deny=deny) == "deny"
