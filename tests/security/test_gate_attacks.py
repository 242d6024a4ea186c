"""Issue 18, items 3, 4, 5 and 7: the permission gate's bypasses, each kept as an attack.

Every test here failed before the fix (allow where it now asks or denies). The gate is the real
one over a real project folder (``git init`` by real git), and one attack runs end to end
through a ``Session`` driven by the local provider fake, under ``--no`` (every question denied).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.policy import CallView, PermissionGate, PermissionPolicy, suggest_rule
from zengine_jupyter.testing import (
    Reply,
    ScriptedToolCall,
    configured_provider,
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of our own: ``~`` in the gate is this folder."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture
def project(tmp_path: Path, home: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "x.py").write_text("x = 1\n")
    (root / "x.py").write_text("x = 1\n")
    (root / "in.txt").write_text("b\na\na\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "sub").mkdir()
    subprocess.run(["git", "init", "-q", str(root / "sub")], check=True)
    return root


def gate(root: Path, mode: str = "default", **rules: list[str] | bool) -> PermissionGate:
    return PermissionGate(root, PermissionPolicy.from_lists(mode=mode, **rules))  # type: ignore[arg-type]


def bash(command: str) -> CallView:
    return CallView("Bash", "execute", command=command)


def write(path: Path, tool: str = "Write") -> CallView:
    return CallView(tool, "edit", paths=(path,))


# ---------------------------------------------------------------- item 3


def test_star_in_an_allow_rule_does_not_reach_outside_the_project(
    project: Path, tmp_path: Path
) -> None:
    """Attack (item 3): the user rule ``Edit(*.py)`` let Write ``/elsewhere/x.py`` run without
    asking: allow rules were matched before the outside check, and ``*`` matched ``/``."""
    elsewhere = tmp_path / "elsewhere" / "x.py"
    g = gate(project, allow=["Edit(*.py)"])
    decision = g.decide(write(elsewhere))
    assert decision.action == "ask", decision.reason
    assert "outside the project" in decision.reason
    assert g.decide(write(project / "src" / "x.py")).action == "ask"  # * stays in one folder
    assert g.decide(write(project / "x.py")).action == "allow"


def test_ipython_startup_folder_asks_even_in_bypass(project: Path, home: Path) -> None:
    """Attack (item 3): a Write to ``~/.ipython/profile_default/startup/x.py`` (code the next
    kernel runs) went through in bypass mode, and with an allow rule that names it."""
    target = home / ".ipython" / "profile_default" / "startup" / "x.py"
    for g in (gate(project, "bypass"), gate(project, "accept_edits", allow=[f"Write({target})"])):
        decision = g.decide(write(target))
        assert decision.action == "ask", decision.reason
        assert "IPython startup" in decision.reason


# ---------------------------------------------------------------- item 4

READ_ONLY_BYPASSES = [
    "git grep -O'sh -c \"id > /tmp/pwned\"' -e x",
    "git grep --open-files-in-pager='sh -c id' x",
    "uniq in.txt out.txt",
    "sort -uo out.txt in.txt",
    "cat /proc/self/environ",
    "grep KEY /proc/1/environ",
    "rg --pre ./decode KEY",
    "rg --pre=./decode KEY",
    "tree -o listing.txt",
    "file -C -m magic",
    "sort --compress-program=./x in.txt",
    "git --git-dir=/tmp/other status",
    "git log -p --ext-diff",
    "git reflog expire --expire=now --all",
    "git reflog delete HEAD@{0}",
    "cat ../secret.txt",
    "head -c 100 /etc/shadow",
]


@pytest.mark.parametrize("command", READ_ONLY_BYPASSES)
def test_read_only_list_refuses_commands_that_write_run_or_read_outside(
    project: Path, command: str
) -> None:
    """Attack (item 4): with ``auto_allow_read_only_bash``, commands on the read-only list ran
    programs (``git grep -O``, ``rg --pre``, ``sort --compress-program``, ``git --ext-diff``),
    wrote files (``uniq IN OUT``, ``sort -o``, ``tree -o``, ``file -C``, ``git reflog expire``)
    or read outside the project (``/proc/*/environ`` holds the engine's own API key)."""
    decision = gate(project, auto_allow_read_only_bash=True).decide(bash(command))
    assert decision.action == "ask", decision.reason


def test_read_only_list_does_not_follow_a_link_out_of_the_project(
    project: Path, tmp_path: Path
) -> None:
    """Attack (item 4): ``cat link.txt`` where ``link.txt -> /outside/secret.txt`` is a read
    outside the project dressed as a read inside."""
    secret = tmp_path / "secret.txt"
    secret.write_text("KEY=1\n")
    (project / "link.txt").symlink_to(secret)
    g = gate(project, auto_allow_read_only_bash=True)
    assert g.decide(bash("cat link.txt")).action == "ask"
    assert g.decide(bash("cat *.txt")).action == "ask"
    assert g.decide(bash("cat in.txt")).action == "allow"


# ---------------------------------------------------------------- item 5


@pytest.mark.parametrize(
    "command", ["git diff > {out}/file", "git diff --output={out}/f", "git diff >> {out}/f"]
)
def test_an_allow_rule_does_not_cover_a_write_outside(
    project: Path, tmp_path: Path, command: str
) -> None:
    """Attack (item 5): ``Bash(git diff:*)`` also allowed ``git diff > /outside/file`` and
    ``git diff --output=/outside/f``: the rule was matched against the raw text."""
    g = gate(project, allow=["Bash(git diff:*)"])
    decision = g.decide(bash(command.format(out=tmp_path / "outside")))
    assert decision.action == "ask", decision.reason
    assert g.decide(bash("git diff --stat")).action == "allow"


DENY_EVASIONS = [
    "/bin/rm -rf data",
    "command rm -rf data",
    "env rm -rf data",
    "\\rm -rf data",
    "'rm' -rf data",
    '"rm" -rf data',
    "nice rm -rf data",
    "nice -n 5 rm -rf data",
    "sudo rm -rf data",
    "ls | xargs rm",
    "timeout 5 rm -rf data",
    "nohup rm -rf data",
    "env FOO=1 rm -rf data",
    "bash -c 'rm -rf data'",
    "time rm -rf data",
    "find . -name x -exec rm {} \\;",
]


@pytest.mark.parametrize("command", DENY_EVASIONS)
def test_a_deny_rule_catches_the_program_however_it_is_written(project: Path, command: str) -> None:
    """Attack (item 5): ``Bash(rm:*)`` in deny was evaded by ``/bin/rm``, ``command rm``,
    ``env rm``, ``\\rm``, ``'rm'``, ``nice rm``, ``sudo rm``, ``xargs rm``, ``timeout 5 rm``."""
    decision = gate(project, "bypass", deny=["Bash(rm:*)"]).decide(bash(command))
    assert decision.action == "deny", decision.reason


def test_a_prefix_rule_is_word_bounded(project: Path) -> None:
    """Attack (item 5): ``Bash(npm test:*)`` matched ``npm test-evil`` (no word boundary)."""
    g = gate(project, allow=["Bash(npm test:*)"])
    assert g.decide(bash("npm test-evil")).action == "ask"
    assert g.decide(bash("npm test")).action == "allow"
    assert g.decide(bash("npm test -- --watch=false")).action == "allow"


@pytest.mark.parametrize(
    "command",
    ["python3 -c 'print(1)'", "node -e 'console.log(1)'", "bash -c 'echo hi'",
     "perl -e 'print 1'", "ruby -e 'p 1'", "php -r 'echo 1;'", "deno eval '1'",
     "xargs echo", "env A=1 ls", "find . -exec echo {} +", "eval echo hi"],
)  # fmt: skip
def test_always_allow_never_offers_a_rule_for_arbitrary_code(project: Path, command: str) -> None:
    """Attack (item 5): "Always allow" on ``python3 -c ...`` offered ``Bash(python3 -c:*)``,
    which then allowed any Python code."""
    rule = suggest_rule(bash(command), project)
    assert not rule.endswith(":*)"), rule
    g = gate(project, allow=[rule])
    assert g.decide(bash(command)).action == "allow", rule
    program = command.split()[0]
    assert g.decide(bash(f"{program} -c 'import os; os.system(\"id\")'")).action == "ask"


# ---------------------------------------------------------------- item 7

PROTECTED = [
    ".git/config",
    ".git/hooks/pre-commit",
    "sub/.git/config",
    ".z-engine/settings.toml",
    ".z-engine/settings.local.toml",
    ".mcp.json",
    ".claude/settings.json",
]


@pytest.mark.parametrize("mode", ["accept_edits", "bypass"])
@pytest.mark.parametrize("tool", ["Edit", "Write"])
@pytest.mark.parametrize("relative", PROTECTED)
def test_protected_paths_always_ask(project: Path, mode: str, tool: str, relative: str) -> None:
    """Attack (item 7): accept_edits wrote ``.git/config``, ``.git/hooks/*`` and
    ``.z-engine/settings*.toml`` without asking; the next chat in the trusted project then ran
    in bypass mode with a hook. Protected paths ask in every mode, whatever allow rules say."""
    g = gate(project, mode, allow=["Edit(**)", "Write(**)"])
    decision = g.decide(write(project / relative, tool))
    assert decision.action == "ask", decision.reason
    assert "protected path" in decision.reason
    assert "always ask" in decision.reason


def test_a_redirect_into_git_config_asks_in_bypass(project: Path) -> None:
    """Attack (item 7, by shell): ``echo ... >> .git/config`` in bypass mode, or under a rule
    that allows ``echo``, plants an fsmonitor or hook just like an Edit would."""
    command = "echo '[core] fsmonitor = id' >> sub/.git/config"
    for g in (gate(project, "bypass"), gate(project, "accept_edits", allow=["Bash(echo:*)"])):
        decision = g.decide(bash(command))
        assert decision.action == "ask", decision.reason
        assert "protected path" in decision.reason


@pytest.mark.parametrize(
    "command",
    [
        "npm test > ~/.bashrc",  # a tilde word: the rule splitter gives up, the write is known
        'echo "alias ls=rm" >> "$HOME/.bashrc"',
        "cp evil.py ~/.ipython/profile_default/startup/00.py",
        "git config core.hooksPath evil-hooks",  # writes .git/config
        "git config --global core.pager 'sh -c id'",  # writes ~/.gitconfig
        "git -C sub config core.fsmonitor 'id > /tmp/x'",
        "git init nested",  # a new nested .git
    ],
)
def test_protected_writes_of_commands_ask_even_in_bypass(project: Path, command: str) -> None:
    """Attack (found after the first fix, by the lead's red-team pass): in bypass mode a command
    the rule splitter could not take apart (``~``, ``$HOME``) and ``git config`` / ``git init``,
    whose target files were not named, ran without asking while writing a start-up file, a
    repository config or a new nested repository."""
    decision = gate(project, "bypass").decide(bash(command))
    assert decision.action == "ask", decision.reason
    assert "protected path" in decision.reason


async def test_accept_edits_session_cannot_edit_git_config_under_no(
    project: Path, zengine_home: Path
) -> None:
    """Attack (item 7, end to end): a scripted model in accept_edits mode under ``--no`` Edits
    ``.git/config`` to add ``core.fsmonitor``; the file must be unchanged afterwards."""
    config = project / ".git" / "config"
    before = config.read_text()
    async with configured_provider(zengine_home) as server:
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Read", {"path": ".git/config"}),)),
            Reply(tool_calls=(ScriptedToolCall("Edit", {
                "path": ".git/config", "old_string": "[core]",
                "new_string": "[core]\n\tfsmonitor = \"id > /tmp/pwned; false\""}),)),
            Reply(text=("Done.",)),
        )  # fmt: skip
        no = FixedApprovals(allow=False)  # zengine run --no
        session = await Session.open(
            SessionOptions(project=project, mode="accept_edits", approvals=no)
        )
        outcome = await session.submit("speed up git status")
        await session.aclose()
    assert outcome.status == "completed", outcome.reason
    assert config.read_text() == before
    result = server.requests[2].json["messages"][-1]["content"][0]
    assert result["is_error"] is True
    assert "denied" in str(result["content"])
    # nobody clicked: the model and the views are told so, not "the user denied"
    assert "nobody could approve it" in str(result["content"])


# ---------------------------------------------------------------- kept decisions (issue 25)


def test_a_kept_decision_never_outlives_its_policy_nor_covers_a_path(
    project: Path, home: Path
) -> None:
    """The gate keeps its decision on a call with no path and no command (an MCP tool's) per
    policy object. A custom command's allowed-tools add a rule for one turn and then put the
    old policy back: the call must ask again. A call that names a path is never kept: a link
    swapped in after one decision is seen by the next."""
    g = gate(project)
    drop = CallView("mcp__db__drop_table", "mcp")
    before = g.policy
    assert g.decide(drop).action == "ask"
    g.policy = before.with_rule("mcp__db")  # the command's turn
    assert g.decide(drop).action == "allow"
    g.policy = before  # the turn ended: the very same policy object as before
    assert g.decide(drop).action == "ask"
    g.policy = before.with_rule("mcp__db__drop_table", kind="deny")
    assert g.decide(drop).action == "deny"

    secret = home / ".ssh" / "id_rsa"
    secret.parent.mkdir()
    secret.write_text("KEY\n")
    notes = project / "notes.txt"
    notes.write_text("notes\n")
    read = CallView("Read", "read", paths=(notes,))
    assert g.decide(read).action == "allow"
    notes.unlink()
    notes.symlink_to(secret)
    assert g.decide(read).action == "ask"
