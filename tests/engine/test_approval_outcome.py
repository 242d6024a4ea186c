"""One wording for an approval's outcome (kernel plain text, CLI; the TS outcomeText agrees)."""

from __future__ import annotations

import pytest

from zengine_jupyter.engine import approval_outcome
from zengine_jupyter.protocol import ToolCallApproved, ToolCallDenied

_IDS = {"session_id": "s", "turn_id": "t", "call_id": "c"}


@pytest.mark.parametrize(
    ("by", "rule", "text"),
    [
        ("user", None, "Allowed once."),
        ("user", "Bash(pytest:*)", "Always allowed (Bash(pytest:*))."),
        ("rule", "Read(*)", "Allowed by policy (rule Read(*))."),
        ("mode", None, "Allowed by policy."),
        ("auto_allow", None, "Allowed by policy (sandboxed)."),
        ("hook", None, "Allowed by a hook."),
    ],
)
def test_allowed_wording(by: str, rule: str | None, text: str) -> None:
    assert approval_outcome(ToolCallApproved(**_IDS, by=by, rule=rule)) == text  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("by", "reason", "text"),
    [
        ("user", "denied", "Denied by you."),
        ("user", "", "Denied by you."),
        ("user", "99 is too high.", "Denied by you: 99 is too high."),
        (
            "rule",
            "Bash(rm:*) is denied by a rule",
            "Denied by policy: Bash(rm:*) is denied by a rule.",
        ),
        ("mode", "plan mode does not edit", "Denied by policy: plan mode does not edit."),
        ("hook", "no network", "Denied by a hook: no network."),
        ("no_answer", "nobody clicked", "Denied (nobody answered): nobody clicked."),
    ],
)
def test_denied_wording_never_doubles(by: str, reason: str, text: str) -> None:
    said = approval_outcome(ToolCallDenied(**_IDS, by=by, reason=reason))  # type: ignore[arg-type]
    assert said == text
    assert "denied: denied" not in said.lower()
