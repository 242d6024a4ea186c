"""Gate tables: precedence, every mode, MCP ask-by-default, paths outside, compound commands."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from zengine_jupyter.policy import CallView, PermissionGate, PermissionPolicy, suggest_rule

ROOT = Path("/work/proj")


def gate(mode: str = "default", **rules: list[str]) -> PermissionGate:
    return PermissionGate(ROOT, PermissionPolicy.from_lists(mode=mode, **rules))  # type: ignore[arg-type]


def bash(command: str) -> CallView:
    return CallView("Bash", "execute", command=command)


def edit(path: str, tool: str = "Edit") -> CallView:
    return CallView(tool, "edit", paths=(ROOT / path if not path.startswith("/") else Path(path),))


def read(path: str, tool: str = "Read") -> CallView:
    return CallView(tool, "read", paths=(ROOT / path if not path.startswith("/") else Path(path),))


MCP = CallView("mcp__github__create_issue", "mcp")

# (mode, rules, call, expected action, expected source)
TABLE = [
    # mode defaults
    ("default", {}, read("a.py"), "allow", "mode"),
    ("default", {}, read("a.py", "Grep"), "allow", "mode"),
    ("default", {}, edit("a.py"), "ask", "mode"),
    ("default", {}, bash("ls"), "ask", "mode"),
    ("default", {}, MCP, "ask", "mode"),
    ("accept_edits", {}, edit("src/a.py"), "allow", "mode"),
    ("accept_edits", {}, edit("src/a.py", "NotebookEdit"), "allow", "mode"),
    ("accept_edits", {}, edit("/etc/hosts"), "ask", "outside"),
    ("accept_edits", {}, bash("make"), "ask", "mode"),
    ("plan", {}, read("a.py"), "allow", "mode"),
    ("plan", {}, edit("a.py"), "deny", "mode"),
    ("plan", {}, bash("ls"), "deny", "mode"),
    ("plan", {}, MCP, "deny", "mode"),
    ("plan", {"allow": ["Bash"]}, bash("ls"), "deny", "mode"),
    ("plan", {"ask": ["Bash"]}, bash("ls"), "deny", "mode"),
    ("bypass", {}, bash("rm -rf build"), "allow", "mode"),
    ("bypass", {}, bash("rm -rf /tmp/x"), "allow", "mode"),  # bypass: the sandbox confines it
    ("bypass", {}, bash("echo x >> .git/config"), "ask", "protected"),  # issue 18 item 7
    # outside the project always asks, even in bypass (issue 18 item 3)
    ("bypass", {}, edit("/etc/hosts"), "ask", "outside"),
    ("bypass", {"ask": ["Bash(git push:*)"]}, bash("git push origin"), "ask", "rule"),
    ("bypass", {"deny": ["Edit(/etc/**)"]}, edit("/etc/hosts"), "deny", "rule"),
    # precedence: deny > ask > allow > mode
    ("default", {"allow": ["Bash"], "deny": ["Bash(rm:*)"]}, bash("rm -rf x"), "deny", "rule"),
    ("default", {"allow": ["Bash"], "ask": ["Bash(git push:*)"]}, bash("git push"), "ask", "rule"),
    ("default", {"allow": ["Bash(git status:*)"]}, bash("git status -s"), "allow", "rule"),
    ("default", {"ask": ["Read(secrets/**)"]}, read("secrets/key.txt"), "ask", "rule"),
    ("default", {"deny": ["Read(.env)"]}, read(".env"), "deny", "rule"),
    ("default", {"deny": ["Read(.env)"]}, read(".env", "Grep"), "deny", "rule"),
    ("default", {"deny": ["Edit(*.lock)"]}, edit("poetry.lock", "Write"), "deny", "rule"),
    ("default", {"allow": ["Write(notes/*)"]}, edit("notes/a.md", "Write"), "allow", "rule"),
    ("default", {"allow": ["Write(notes/*)"]}, edit("notes/a.md", "Edit"), "ask", "mode"),
    # * stays in one folder, ** crosses folders (issue 18 item 3)
    ("default", {"allow": ["Edit(*.py)"]}, edit("a.py"), "allow", "rule"),
    ("default", {"allow": ["Edit(*.py)"]}, edit("src/a.py"), "ask", "mode"),
    ("default", {"allow": ["Edit(**/*.py)"]}, edit("a.py"), "allow", "rule"),
    ("default", {"allow": ["Edit(**/*.py)"]}, edit("src/deep/a.py"), "allow", "rule"),
    ("default", {"allow": ["Write(notes/*)"]}, edit("notes/sub/a.md", "Write"), "ask", "mode"),
    # compound commands: allow must cover every part; deny catches any part
    ("default", {"allow": ["Bash(git status:*)"]}, bash("git status && rm -rf /"), "ask", "mode"),
    ("default", {"allow": ["Bash(ls:*)", "Bash(wc:*)"]}, bash("ls | wc -l"), "allow", "rule"),
    ("default", {"deny": ["Bash(rm:*)"]}, bash("ls; rm -rf data"), "deny", "rule"),
    ("default", {"allow": ["Bash(echo:*)"]}, bash("echo $(cat ~/.ssh/id_rsa)"), "ask", "mode"),
    # unparsable lines are split roughly for deny rules (issue 18 item 5)
    ("default", {"deny": ["Bash(curl:*)"]}, bash("echo `curl x`"), "deny", "rule"),
    # MCP
    ("default", {"allow": ["mcp__github"]}, MCP, "allow", "rule"),
    ("default", {"allow": ["mcp__github__create_issue"]}, MCP, "allow", "rule"),
    ("default", {"allow": ["mcp__github__list_issues"]}, MCP, "ask", "mode"),
    ("default", {"allow": ["mcp__git"]}, MCP, "ask", "mode"),
    # outside the project
    ("default", {}, read("/home/ann/.ssh/id_rsa"), "ask", "outside"),
    ("default", {}, read("../sibling/a.py"), "ask", "outside"),
    # reads outside ask whatever allow rules say: additional_directories opens a folder
    ("default", {"allow": ["Read(/data/shared/**)"]}, read("/data/shared/x.csv"), "ask",
     "outside"),
    ("default", {"additional_directories": [Path("/data/shared")]}, read("/data/shared/x.csv"),
     "allow", "mode"),
]  # fmt: skip


@pytest.mark.parametrize(("mode", "rules", "call", "action", "source"), TABLE)
def test_gate_table(mode: str, rules: dict, call: CallView, action: str, source: str) -> None:  # type: ignore[type-arg]
    decision = gate(mode, **rules).decide(call)
    assert (decision.action, decision.source) == (action, source), decision.reason


def test_read_only_bash_runs_without_asking_only_when_provable() -> None:
    g = PermissionGate(ROOT, PermissionPolicy.from_lists(auto_allow_read_only_bash=True))
    assert g.decide(bash("git status && ls -la | head")).source == "read_only_bash"
    for risky in [
        "ls > out.txt",
        "find . -delete",
        "git push",
        "sort -o x y",
        "cat $(which x)",
        "FOO=1 ls",
        "python script.py",
        "git branch -D main",
        "pip install x",
    ]:
        assert g.decide(bash(risky)).action == "ask", risky


def test_sandbox_auto_allow_is_consulted_last() -> None:
    seen: list[str] = []

    def auto(command: str) -> bool:
        seen.append(command)
        return command.startswith("make")

    g = PermissionGate(ROOT, PermissionPolicy.from_lists(deny=["Bash(make clean:*)"]), auto)
    assert g.decide(bash("make test")).source == "auto_allow"
    assert g.decide(bash("make clean")).action == "deny"
    assert g.decide(bash("rm x")).action == "ask"
    assert seen == ["make test", "rm x"]


def test_always_allow_applies_at_once() -> None:
    g = gate()
    call = bash("git log --oneline -5")
    assert g.decide(call).action == "ask"
    rule = suggest_rule(call, ROOT)
    assert rule == "Bash(git log:*)"
    g.policy = g.policy.with_rule(rule)
    assert g.decide(call).action == "allow"
    assert g.decide(bash("git log -p")).action == "allow"
    assert g.decide(bash("git push")).action == "ask"


def test_a_decision_on_a_named_call_follows_each_new_policy() -> None:
    """Calls with no path and no command (MCP tools) are decided once per policy object:
    every way a policy changes gives a new object, and the next call sees it."""
    g = gate()
    call = CallView("mcp__db__query", "mcp")
    assert g.decide(call).action == "ask"
    assert g.decide(call) is g.decide(call)  # kept for this policy
    g.policy = g.policy.with_rule("mcp__db")
    assert (g.decide(call).action, g.decide(call).rule) == ("allow", "mcp__db")
    assert g.decide(CallView("mcp__other__x", "mcp")).action == "ask"
    g.policy = g.policy.with_rule("mcp__db__query", kind="deny")
    assert g.decide(call).action == "deny"
    g.policy = replace(g.policy, deny=(), mode="plan")
    assert g.decide(call).action == "deny"
    assert g.decide(call).source == "mode"
    g.policy = replace(g.policy, mode="bypass")
    assert g.decide(call).action == "allow"
    g.policy = PermissionPolicy.from_lists(ask=["mcp__db"], allow=["mcp__db"])
    assert g.decide(call).action == "ask"


def test_suggested_rules() -> None:
    assert suggest_rule(edit("src/a.py"), ROOT) == "Edit(src/a.py)"
    assert suggest_rule(MCP, ROOT) == "mcp__github__create_issue"
    assert suggest_rule(bash("ls"), ROOT) == "Bash(ls)"
    assert suggest_rule(bash("make && make test"), ROOT) == "Bash(make && make test)"
