"""Acceptance 4: the auto-allow table (allow / ask and why); acceptance 3: with the sandbox
unavailable, the same table asks for every command."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zengine_jupyter.host.sandbox import (
    CommandOrigin,
    DetectOptions,
    ProtectedPath,
    SandboxOptions,
    SandboxProfile,
    detect_backend,
    plan_shell,
)
from zengine_jupyter.policy import AutoAllowRequest, decide_auto_allow

P = Path("/work/proj")
HOME = Path("/home/u")

PROFILE = SandboxProfile(
    root=P,
    writable=(Path("/tmp"), Path("/data"), P, HOME / ".cache", HOME / ".npm"),
    pinned=(P / ".git",),
    protected=(
        ProtectedPath(P / ".git/hooks", "dir", exists=True),
        ProtectedPath(P / ".git/config", "file", exists=True),
        ProtectedPath(P / ".git/commondir", "file", exists=False, seed=b".\n"),
        ProtectedPath(P / ".z-engine", "dir", exists=True),
        ProtectedPath(P / ".claude", "dir", exists=False),
        ProtectedPath(P / ".mcp.json", "file", exists=False),
    ),
    allow_network=False,
    home=HOME,
    temp_dir=Path("/tmp"),
)

ALLOW, ASK = "allow", "ask"

# (command, expected verdict, a word the reason must contain)
TABLE: list[tuple[str, str, str]] = [
    # no file named for writing: the sandbox confines whatever it does
    ("python train.py", ALLOW, "names no file"),
    ("pytest -q tests/", ALLOW, "names no file"),
    ("ls -la | grep csv", ALLOW, "names no file"),
    ("git status", ALLOW, "names no file"),
    ("git log --oneline -5", ALLOW, "names no file"),
    ("sed 's/a/b/' /etc/hosts", ALLOW, "names no file"),
    ("cat data.csv > /dev/null 2>&1", ALLOW, "names no file"),
    ("npm test", ALLOW, "names no file"),
    # writes inside the writable areas
    ("echo hi > notes.txt", ALLOW, "inside"),
    ("echo more >> logs/run.log 2>> logs/err.log", ALLOW, "inside"),
    ("cp data.csv backup/data.csv", ALLOW, "inside"),
    ("mv old.csv archive/", ALLOW, "inside"),
    ("rm -rf build dist", ALLOW, "inside"),
    ("rm *.pyc", ALLOW, "inside"),
    ("rm -rf *", ALLOW, "inside"),
    ("touch /tmp/marker", ALLOW, "inside"),
    ("mkdir -p out/figures && cd out && touch index.html", ALLOW, "inside"),
    ("cmd 2>&1 | tee -a build.log", ALLOW, "inside"),
    ("sed -i 's/foo/bar/' src/app.py", ALLOW, "inside"),
    ("sed -i.bak -e 's/x/y/' a.txt b.txt", ALLOW, "inside"),
    ("ln -sf ../shared config.link", ALLOW, "inside"),
    ("chmod +x scripts/run.sh", ALLOW, "inside"),
    ("chmod -R -x scripts", ALLOW, "inside"),
    ("rsync -a src/ build/src/", ALLOW, "inside"),
    ("patch -p1 < fix.diff", ALLOW, "inside"),
    ("dd if=/dev/zero of=blob.bin bs=1k count=1", ALLOW, "inside"),
    ("git add -A && git commit -m 'wip'", ALLOW, "inside"),
    ("git clone https://example.invalid/r.git vendor/r", ASK, "protected"),  # vendor/r/.git
    ("python -m venv .venv", ALLOW, "inside"),
    ("touch ~/.cache/pip/x", ALLOW, "inside"),
    ("cp results.csv /data/results.csv", ALLOW, "inside"),
    ("tar xzf data.tgz -C /tmp/unpacked", ALLOW, "inside"),
    ("find . -name '*.o' -delete", ALLOW, "inside"),
    ("bash -c 'echo ok > ok.txt'", ALLOW, "inside"),
    ("if test -f a; then rm a; fi", ALLOW, "inside"),
    ("FOO=1 env BAR=2 touch flag", ALLOW, "inside"),
    # writes outside the writable areas, or to protected paths
    ("echo x > /etc/hosts", ASK, "outside"),
    ("cp id_rsa ~/.ssh/authorized_keys", ASK, "outside"),
    ("echo 'alias ls=rm' >> ~/.bashrc", ASK, "outside"),
    ("mv data.csv ../elsewhere.csv", ASK, "outside"),
    ("cd /etc; touch x", ASK, "outside"),
    ("cd; touch x", ASK, "outside"),
    ("echo '#!/bin/sh' > .git/hooks/pre-commit", ASK, "outside"),
    ("echo '{}' > .mcp.json", ASK, "outside"),
    ("echo x > .claude/settings.json", ASK, "outside"),
    ("tee .z-engine/settings.toml < new.toml", ASK, "outside"),
    ("mv .git .git-old", ASK, "outside"),
    ("dd if=img of=/dev/sda", ASK, "outside"),
    ("git -C /opt/other commit -m x", ASK, "outside"),
    ("bash -c 'rm -rf /usr/local/lib'", ASK, "outside"),
    ("bash -lc 'touch /etc/x'", ASK, "outside"),
    ("env -u HOME rm /etc/x", ASK, "outside"),
    ("env -C /etc rm x", ASK, "env -C"),
    ("nice -n 5 timeout -s KILL 10 rm /etc/x", ASK, "outside"),
    ("if true; then rm /etc/passwd; fi", ASK, "outside"),
    ("f() { rm /etc/passwd; }; f", ASK, "outside"),
    ("find / -name core -delete", ASK, "outside"),
    ("curl -o /usr/local/bin/tool https://example.invalid/t", ASK, "outside"),
    ("rm /etc/*.conf", ASK, "outside"),
    ("chmod -x /etc/cron.daily/job", ASK, "outside"),
    ("chown -R me /srv", ASK, "outside"),
    ("rsync -a out/ /srv/www/", ASK, "outside"),
    ("rsync -a out/ host:/srv/www/", ASK, "another machine"),
    ("patch -d /etc -p0 < x.diff", ASK, "outside"),
    ("vim -es -c 'w! /etc/x' a", ASK, "editor"),
    ("rm -rf .g*", ASK, "outside"),
    # protected as the gate sees them (issue 18 item 6): any .git folder, nested ones too
    ("rm -f .git/*.lock", ASK, "outside"),
    ("echo '[core]' >> sub/.git/config", ASK, "outside"),
    ("cp evil.sh vendor/lib/.git/hooks/post-checkout", ASK, "outside"),
    ("mkdir -p pkg/.z-engine && cp s.toml pkg/.z-engine/settings.toml", ASK, "outside"),
    ("rm -f .git/hoo*/pre-commit", ASK, "glob"),
    ("echo x > .mcp.js?n", ASK, "outside"),
    # cannot be analysed: ask
    ("git config core.hooksPath /tmp/hooks", ASK, "protected"),
    ("git config --global user.name x", ASK, "protected"),  # ~/.gitconfig
    ('eval "$CMD"', ASK, "eval"),
    ('echo x > "$OUT"', ASK, "run time"),
    ('for f in *.csv; do rm "$f"; done', ASK, "run time"),
    ("cp a.txt $(cat target)", ASK, "run time"),
    ("ls | xargs rm", ASK, "xargs"),
    ("source setup.sh", ASK, "source"),
    ("sudo rm -rf /var/cache", ASK, "another user"),
    ("( cd /; rm -rf tmp )", ASK, "cd inside"),
    ("echo $((1 + 2)) > n.txt", ASK, "parser"),
    ("echo x > a{1,2}.txt", ASK, "brace"),
    ("rm */cache/*.tmp", ASK, "glob"),
    ("npm install -g typescript", ASK, "global"),
    ("pip install --user requests", ASK, "--user"),
    ("find . -name '*.py' -exec sed -i s/a/b/ {} +", ASK, "-exec"),
    ("cd $DIR && rm x", ASK, "run time"),
    ("cd .gi* && rm -rf hooks", ASK, "run time"),
    ("awk '{ print > \"/etc/x\" }' f", ASK, "awk"),
]


def test_the_table_is_large_and_mixed() -> None:
    verdicts = [v for _, v, _ in TABLE]
    assert len(TABLE) >= 40
    assert verdicts.count(ALLOW) >= 15
    assert verdicts.count(ASK) >= 15


@pytest.mark.parametrize(("command", "verdict", "why"), TABLE, ids=[c for c, _, _ in TABLE])
def test_auto_allow_table(command: str, verdict: str, why: str) -> None:
    decision = decide_auto_allow(AutoAllowRequest(command, P, auto_allow=True, profile=PROFILE))
    assert decision.verdict == verdict, decision.reason
    assert why in decision.reason


def test_writes_are_reported_resolved() -> None:
    decision = decide_auto_allow(
        AutoAllowRequest("mkdir -p out && cd out && echo x > ../log.txt", P, True, PROFILE)
    )
    assert decision.allowed
    assert {str(p) for p in decision.writes} == {f"{P}/out", f"{P}/log.txt"}


def test_cd_without_and_keeps_both_directories_possible() -> None:
    decision = decide_auto_allow(AutoAllowRequest("cd /data; touch x", P, True, PROFILE))
    assert decision.allowed
    assert {str(p) for p in decision.writes} == {f"{P}/x", "/data/x"}


def test_a_failed_cd_in_an_and_chain_is_remembered() -> None:
    decision = decide_auto_allow(AutoAllowRequest("cd a && cd /data; touch x", P, True, PROFILE))
    assert {str(p) for p in decision.writes} == {f"{P}/x", f"{P}/a/x", "/data/x"}
    asks = decide_auto_allow(AutoAllowRequest("cd /data && cd /etc; touch x", P, True, PROFILE))
    assert asks.verdict == ASK
    assert "/etc/x" in asks.reason


def test_auto_allow_off_always_asks() -> None:
    decision = decide_auto_allow(AutoAllowRequest("python train.py", P, False, PROFILE))
    assert decision.verdict == ASK
    assert "auto_allow is off" in decision.reason


def test_unsandboxed_command_always_asks() -> None:
    decision = decide_auto_allow(AutoAllowRequest("echo hi > a.txt", P, True, None))
    assert decision.verdict == ASK
    assert "outside the sandbox" in decision.reason


def test_sandbox_unavailable_means_every_command_asks(tmp_path: Path) -> None:
    """Acceptance 3 (gate side): bwrap missing -> the plan carries the notice, runs unconfined,
    and auto-allow asks for every command of the table, even those it would allow."""
    backend = asyncio.run(
        detect_backend(DetectOptions(platform="linux", bwrap="/nonexistent/bwrap"))
    )
    options = SandboxOptions(root=tmp_path, temp_dir=tmp_path, home=tmp_path, enabled=True)
    for command, _, _ in TABLE:
        plan = plan_shell(options, backend, CommandOrigin.AGENT_BASH, command, tmp_path)
        assert plan.notice is not None
        assert not plan.sandboxed
        decision = decide_auto_allow(AutoAllowRequest(command, tmp_path, True, plan.profile))
        assert decision.verdict == ASK, command


@given(st.text(max_size=80))
@settings(max_examples=300, deadline=None)
def test_any_text_gets_a_decision_and_allow_never_writes_outside(command: str) -> None:
    decision = decide_auto_allow(AutoAllowRequest(command, P, True, PROFILE))
    assert decision.verdict in (ALLOW, ASK)
    if decision.allowed:
        assert all(PROFILE.is_writable(p) for p in decision.writes)


_WORDS = st.sampled_from(
    ["echo", "rm", "-rf", "cp", "mv", "touch", ">", ">>", "|", "&&", ";", "cd", "/etc",
     "..", "~", "a.txt", ".git", ".git/hooks/x", "$X", "tee", "sed", "-i", "git", "config",
     "x=1", "(", ")", "{", "}", "*", "dd", "of=/tmp/x", "ln", "-s", "2>&1", "'q q'", '"$(ls)"']
)  # fmt: skip


@given(st.lists(_WORDS, max_size=10))
@settings(max_examples=300, deadline=None)
def test_shell_like_sequences_never_crash(words: list[str]) -> None:
    decision = decide_auto_allow(AutoAllowRequest(" ".join(words), P, True, PROFILE))
    if decision.allowed:
        assert all(PROFILE.is_writable(p) for p in decision.writes)


def test_the_gate_uses_auto_allow_only_where_its_order_allows(tmp_path: Path) -> None:
    """Deny and ask rules and plan mode win; auto-allow only clears what the mode would ask."""
    from zengine_jupyter.policy import (
        CallView,
        PermissionGate,
        PermissionPolicy,
        sandbox_auto_allow,
    )

    assert sandbox_auto_allow(PROFILE, P, auto_allow=False) is None
    assert sandbox_auto_allow(None, P, auto_allow=True) is None
    hook = sandbox_auto_allow(PROFILE, P, auto_allow=True)
    assert hook is not None
    assert hook("echo hi > notes.txt")
    assert not hook("echo x > /etc/hosts")

    def decide(command: str, policy: PermissionPolicy) -> str:
        gate = PermissionGate(P, policy, auto_allow=hook)
        return gate.decide(CallView("Bash", "execute", command=command)).action

    default = PermissionPolicy()
    assert decide("echo hi > notes.txt", default) == "allow"
    assert decide("echo x > /etc/hosts", default) == "ask"
    assert decide("echo hi > notes.txt", PermissionPolicy(mode="plan")) == "deny"
    assert decide("echo hi > notes.txt", PermissionPolicy.from_lists(ask=["Bash(echo:*)"])) == "ask"
    assert decide("rm -rf build", PermissionPolicy.from_lists(deny=["Bash(rm:*)"])) == "deny"
