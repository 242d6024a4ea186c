"""Acceptance 2 (property): an untrusted project's effective policy is never looser than the
user's own. Every action the user level denies or asks stays denied or asked."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from zengine_jupyter.config import (
    Layer,
    PermissionRule,
    Settings,
    effective_from_layers,
    resolve_layers,
)

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
READ_ONLY_BASH = {"ls", "git status"}


def decide(s: Settings, tool: str, arg: str | None) -> int:
    """A model of the permission gate (policy/ owns the real one).

    Order: deny rules, plan mode's refusal of writes, ask rules, bypass, allow rules, defaults.
    Hypothesis found that checking ask rules before plan mode lets a project's ``ask = ["Bash"]``
    turn the user's plan-mode refusal into a question: the real gate must keep this order.
    """
    p = s.permissions
    if any(PermissionRule.parse(r).matches(tool, arg) for r in p.deny):
        return DENY
    writes = tool in ("Edit", "Write") or (tool == "Bash" and arg not in READ_ONLY_BASH)
    if p.mode == "plan" and writes:
        return DENY
    if any(PermissionRule.parse(r).matches(tool, arg) for r in p.ask):
        return ASK
    if p.mode == "bypass":
        return ALLOW
    if any(PermissionRule.parse(r).matches(tool, arg) for r in p.allow):
        return ALLOW
    inside = arg is not None and (
        not arg.startswith("/")
        or any(arg.startswith(d.rstrip("/") + "/") for d in p.additional_directories)
    )
    if tool == "Read" and inside:
        return ALLOW
    if tool in ("Edit", "Write") and inside and p.mode == "accept_edits":
        return ALLOW
    if tool == "Bash" and p.auto_allow_read_only_bash and arg in READ_ONLY_BASH:
        return ALLOW
    if tool == "Bash" and s.shell.sandbox.enabled and s.shell.sandbox.auto_allow:
        return ALLOW
    return ASK


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
