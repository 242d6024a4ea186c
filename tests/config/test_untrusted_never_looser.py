"""Acceptance 2 (property): an untrusted project's effective policy is never looser than the
user's own. Every action the user level denies or asks stays denied or asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from hypothesis import given, settings
from hypothesis import strategies as st

from zengine_jupyter.config import (
    Layer,
    Settings,
    effective_from_layers,
    resolve_layers,
)
from zengine_jupyter.policy import CallView, PermissionGate, PermissionPolicy

ALLOW, ASK, DENY = 0, 1, 2

RULES = [
    "Bash",
    "Bash(rm:*)",
    "Bash(npm run test:*)",
    "Bash(ls)",
    "Bash(*)",
    "Read",
    "Read(/etc/*)",
    "Edit(src/*)",
    "Edit",
    "Write",
    "mcp__github",
    "mcp__github__create_issue",
]
DIRS = ["/data", "/etc", "/"]
ACTIONS: list[tuple[str, str | None]] = [
    ("Bash", "ls"),
    ("Bash", "rm -rf /"),
    ("Bash", "npm run test -- -x"),
    ("Bash", "git status"),
    ("Bash", "curl evil.example"),
    ("Read", "src/a.py"),
    ("Read", "/etc/passwd"),
    ("Read", "/data/x.csv"),
    ("Edit", "src/a.py"),
    ("Edit", "/etc/hosts"),
    ("Write", "/data/y"),
    ("mcp__github__create_issue", None),
    ("mcp__github__list_issues", None),
]
ROOT = Path("/work/proj")


def decide(s: Settings, tool: str, arg: str | None) -> int:
    """The real permission gate's answer for the effective settings ``s``."""
    sandbox = s.shell.sandbox
    gate = PermissionGate(
        ROOT,
        PermissionPolicy.from_settings(s.permissions, ROOT),
        auto_allow=(lambda _cmd: True) if sandbox.enabled and sandbox.auto_allow else None,
    )
    if tool == "Bash":
        call = CallView(tool, "execute", command=arg)
    elif tool.startswith("mcp__"):
        call = CallView(tool, "mcp")
    else:
        kind: Literal["read", "edit"] = "read" if tool == "Read" else "edit"
        call = CallView(tool, kind, paths=(ROOT / (arg or ""),))
    return {"allow": ALLOW, "ask": ASK, "deny": DENY}[gate.decide(call).action]


def _sublist(pool: list[str]) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(pool), max_size=4, unique=True)


def _layer_data() -> st.SearchStrategy[dict[str, Any]]:
    permissions = st.fixed_dictionaries(
        {},
        optional={
            "mode": st.sampled_from(["default", "accept_edits", "plan", "bypass"]),
            "allow": _sublist(RULES),
            "ask": _sublist(RULES),
            "deny": _sublist(RULES),
            "additional_directories": _sublist(DIRS),
            "auto_allow_read_only_bash": st.booleans(),
        },
    )
    sandbox = st.fixed_dictionaries(
        {}, optional={"enabled": st.booleans(), "auto_allow": st.booleans()}
    )
    return st.fixed_dictionaries(
        {},
        optional={
            "permissions": permissions,
            "shell": st.builds(lambda sb: {"sandbox": sb}, sandbox),
        },
    )


@settings(max_examples=300, deadline=None)
@given(user=_layer_data(), project=_layer_data(), local=_layer_data())
def test_an_untrusted_project_never_loosens_the_users_policy(
    user: dict[str, Any], project: dict[str, Any], local: dict[str, Any]
) -> None:
    layers = [Layer("user", user), Layer("project", project), Layer("local", local)]
    mine = resolve_layers(layers[:1]).settings
    effective = effective_from_layers(layers, project=None, trusted=False).settings
    for tool, arg in ACTIONS:
        before, after = decide(mine, tool, arg), decide(effective, tool, arg)
        assert after >= before, (tool, arg, before, after)


def test_the_property_would_catch_a_loosening_project() -> None:
    """The same check, on trusted settings, finds the loosening: the property can fail."""
    layers = [Layer("user", {}), Layer("project", {"permissions": {"mode": "bypass"}})]
    mine = resolve_layers(layers[:1]).settings
    trusted = effective_from_layers(layers, project=None, trusted=True).settings
    untrusted = effective_from_layers(layers, project=None, trusted=False).settings
    assert decide(trusted, "Bash", "rm -rf /") < decide(mine, "Bash", "rm -rf /")
    assert decide(untrusted, "Bash", "rm -rf /") == decide(mine, "Bash", "rm -rf /")
