"""Issue 18.1: no git the engine runs reads configuration the project controls.

Each attack plants a git setting that runs a program (``core.fsmonitor``, hooks) where the
project controls it: an embedded bare repository, a nested ``sub/.git``, the project's own
``.git/config``, a config ``include`` and a ``.git`` file that points elsewhere. The model's
Glob and Grep calls go through a real session under ``zengine run --no`` (every question
denied), with real git; the program would create a marker file on the host.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.engine.tools._listing import list_files
from zengine_jupyter.host._git_safe import SAFE_GIT_CONFIG, safe_git_env
from zengine_jupyter.host.checkpoint import ISOLATION_CONFIG, ShadowRepository
from zengine_jupyter.protocol import EngineEvent, ToolCallFinished
from zengine_jupyter.testing import (
    Reply,
    ScriptedToolCall,
    configured_provider,
)
from zengine_jupyter.testing.components import require_component

_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "PATH": "/usr/bin:/bin"}


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd, check=True, env=_ENV, capture_output=True,
    )  # fmt: skip


def arm(git_dir: Path, marker: Path, *, work_tree: Path | None = None) -> None:
    """Give ``git_dir`` an index (so git consults the fsmonitor) and then the fsmonitor."""
    tree = ["--work-tree", str(work_tree)] if work_tree is not None else []
    git(f"--git-dir={git_dir}", *tree, "add", "-A", cwd=work_tree or git_dir.parent)
    git(f"--git-dir={git_dir}", "config", "core.fsmonitor", f"touch {marker}; false", cwd=git_dir)


def repo(root: Path) -> None:
    root.mkdir(exist_ok=True)
    git("init", "-q", ".", cwd=root)
    (root / "readme.md").write_text("needle\n")
    git("add", "-A", cwd=root)
    git("commit", "-qm", "first", cwd=root)


async def run_calls(
    project: Path, home: Path, *calls: ScriptedToolCall, extra: str = ""
) -> list[ToolCallFinished]:
    """One turn of a scripted model making ``calls`` (one reply each), every question denied."""
    async with configured_provider(home, extra) as server:
        server.add(*(Reply(tool_calls=(c,)) for c in calls), Reply(text=("done",)))
        session = await Session.open(
            SessionOptions(project=project, approvals=FixedApprovals(allow=False))
        )
        events = session.subscribe()
        outcome = await session.submit("look around")
        await session.aclose()
    assert outcome.status == "completed", outcome.reason
    seen: list[EngineEvent] = [e async for e in events]
    return [e for e in seen if isinstance(e, ToolCallFinished)]


def glob(path: str, pattern: str = "**/*") -> ScriptedToolCall:
    return ScriptedToolCall("Glob", {"pattern": pattern, "path": path})


def grep(path: str) -> ScriptedToolCall:
    return ScriptedToolCall("Grep", {"pattern": "needle", "path": path})


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    require_component("git")
    return tmp_path / "ran-on-the-host"


async def test_embedded_bare_repo_fsmonitor_never_runs(
    tmp_path: Path, zengine_home: Path, marker: Path
) -> None:
    """Attack: a committed bare repo ``tests/fixture.git`` with ``bare = false``,
    ``worktree = ../..`` and ``core.fsmonitor`` runs its command when the model Globs or
    Greps that folder (git discovers it as the repository of the folder it runs in)."""
    project = tmp_path / "proj"
    repo(project)
    bare = project / "tests" / "fixture.git"
    git("init", "-q", "--bare", str(bare), cwd=project)
    git(f"--git-dir={bare}", "config", "core.bare", "false", cwd=project)
    git(f"--git-dir={bare}", "config", "core.worktree", "../..", cwd=project)
    arm(bare, marker, work_tree=project)
    (project / "tests" / "test_a.py").write_text("needle = 1\n")

    results = await run_calls(
        project, zengine_home,
        glob("tests/fixture.git"), glob("tests"), grep("tests/fixture.git"), grep("tests"),
        glob(".", "**/config"),
    )  # fmt: skip

    assert not marker.exists()
    assert [r.is_error for r in results] == [False] * 5
    assert results[1].output == "tests/test_a.py"  # the bare repo's internals are not listed
    assert results[3].output == "tests/test_a.py"
    assert "no files match" in results[4].output


async def test_nested_repo_made_by_a_sandboxed_command_never_runs(
    tmp_path: Path, zengine_home: Path, marker: Path
) -> None:
    """Attack: an auto-allowed sandboxed Bash creates ``sub/.git/config`` with an fsmonitor
    (the sandbox protects only the top-level ``.git``), then the model Globs and Greps ``sub``."""
    project = tmp_path / "proj"
    repo(project)
    setup = (  # a repository by hand (the index copied from the project's): only file writes
        "mkdir -p sub/.git/objects sub/.git/refs && echo needle > sub/f.txt && "
        "printf 'ref: refs/heads/main\\n' > sub/.git/HEAD && cp .git/index sub/.git/index && "
        f"printf '[core]\\n\\tfsmonitor = \"touch {marker}; false\"\\n' > sub/.git/config"
    )
    if shutil.which("bwrap"):
        extra = "[shell.sandbox]\nenabled = true\nauto_allow = true\n"
        bash = ScriptedToolCall("Bash", {"command": setup})
        (made,) = await run_calls(project, zengine_home, bash, extra=extra)
        # protected paths are never auto-allowed (issue 18 item 6): it asks, denied under --no
        assert made.is_error, made.output
        assert not (project / "sub" / ".git" / "config").exists()
    # plant it the way the command would have (Glob and Grep must hold even so)
    subprocess.run(["bash", "-c", setup], cwd=project, check=True)
    assert (project / "sub" / ".git" / "config").read_text().count("fsmonitor") == 1
    assert not marker.exists()

    results = await run_calls(project, zengine_home, glob("sub"), grep("sub"), grep("."))

    assert not marker.exists()
    assert [r.output for r in results[:2]] == ["sub/f.txt", "sub/f.txt"]
    assert sorted(results[2].output.splitlines()) == ["readme.md", "sub/f.txt"]


async def test_projects_own_git_config_fsmonitor_never_runs(
    tmp_path: Path, zengine_home: Path, marker: Path
) -> None:
    """Attack: accept_edits lets Edit change the project's own ``.git/config`` without asking
    (here written directly, as that Edit would); then a Grep or Glob of ``.`` runs git in the
    project, which runs the fsmonitor command."""
    project = tmp_path / "proj"
    repo(project)
    arm(project / ".git", marker, work_tree=project)

    results = await run_calls(project, zengine_home, grep("."), glob("."), glob("readme.md"))

    assert not marker.exists()
    assert [r.output for r in results[:2]] == ["readme.md", "readme.md"]


async def test_config_include_and_gitfile_redirection_never_run(
    tmp_path: Path, zengine_home: Path, marker: Path
) -> None:
    """Attack: the execution keys reached indirectly. The project's ``.git/config`` includes a
    committed file (``[include] path``) that sets ``core.fsmonitor`` and ``core.hooksPath``
    (every hook writing the marker); ``lib/.git`` is a *file* (``gitdir: ../planted``) that
    points git at a planted folder whose config has an fsmonitor. Glob and Grep must run none
    of it, and neither may the checkpoint the turn takes."""
    project = tmp_path / "proj"
    repo(project)
    hooks = project / "hooks"
    hooks.mkdir()
    for name in ("post-index-change", "reference-transaction", "post-checkout", "pre-commit",
                 "pre-auto-gc", "fsmonitor-watchman", "post-commit"):  # fmt: skip
        hook = hooks / name
        hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
        hook.chmod(0o755)
    (project / "evil.gitconfig").write_text(
        f'[core]\n\tfsmonitor = "touch {marker}; false"\n\thooksPath = {hooks}\n'
    )
    with (project / ".git" / "config").open("a") as config:
        config.write("[include]\n\tpath = ../evil.gitconfig\n")
    planted = project / "planted"
    git("init", "-q", "--bare", str(planted), cwd=project)
    git(f"--git-dir={planted}", "config", "core.bare", "false", cwd=project)
    (project / "lib").mkdir()
    (project / "lib" / "mod.py").write_text("needle\n")
    arm(planted, marker, work_tree=project / "lib")
    (project / "lib" / ".git").write_text("gitdir: ../planted\n")
    marker.unlink(missing_ok=True)

    results = await run_calls(project, zengine_home, glob("lib"), grep("lib"), grep("."))

    assert not marker.exists()
    assert results[0].output == "lib/mod.py"
    assert "lib/mod.py" in results[2].output.splitlines()


async def test_checkpoints_run_none_of_the_projects_git_settings(
    tmp_path: Path, zengine_home: Path, marker: Path
) -> None:
    """Attack (regression guard; the shadow repository was already isolated): a project whose
    own ``.git/config``, a nested ``sub/.git/config`` and ``.gitattributes`` name an fsmonitor,
    hooks and a filter; snapshots and a restore in the shadow repository run none of them."""
    project = tmp_path / "proj"
    repo(project)
    arm(project / ".git", marker, work_tree=project)
    with (project / ".git" / "config").open("a") as config:
        config.write(f'[filter "x"]\n\tclean = touch {marker}\n\tsmudge = touch {marker}\n'
                     f"[core]\n\thooksPath = {project / 'hooks'}\n")  # fmt: skip
    (project / ".gitattributes").write_text("* filter=x\n")
    (project / "sub").mkdir()
    git("init", "-q", ".", cwd=project / "sub")
    (project / "sub" / "f.txt").write_text("x\n")
    arm(project / "sub" / ".git", marker, work_tree=project / "sub")
    shadow = ShadowRepository(project, zengine_home)
    first = await shadow.snapshot("one")
    (project / "readme.md").write_text("changed\n")
    second = await shadow.snapshot("two")
    assert first.id != second.id  # type: ignore[union-attr]
    out = await shadow.git("diff-tree", "-r", "--name-only", first.id, second.id)  # type: ignore[union-attr]
    assert out.decode().split() == ["readme.md"]
    assert not marker.exists()


def test_every_git_call_pins_the_settings_that_run_programs(tmp_path: Path) -> None:
    """Attack surface check: the checkpoint repository's settings include every shared pin
    (fsmonitor off, no hooks, no ssh or pager programs, explicit bare repositories), and the
    environment shuts out system and global config."""
    pinned = dict(ISOLATION_CONFIG)
    for key, value in SAFE_GIT_CONFIG:
        assert pinned.get(key) == value, key
    for key in ("core.fsmonitor", "core.hooksPath", "core.sshCommand", "core.pager",
                "safe.bareRepository", "protocol.allow", "credential.helper"):  # fmt: skip
        assert key in dict(SAFE_GIT_CONFIG)
    env = safe_git_env(tmp_path / "g", tmp_path)
    assert env["GIT_CONFIG_GLOBAL"] == env["GIT_CONFIG_SYSTEM"] == "/dev/null"
    assert env["GIT_CONFIG_NOSYSTEM"] == "1"


async def test_list_files_runs_no_git_at_all(
    tmp_path: Path, marker: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack: any git run by the listing reads the listed folder's repository config; with a
    ``git`` on PATH that only writes the marker, listing a repository must not touch it."""
    project = tmp_path / "proj"
    repo(project)
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "git").write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    (fake / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:/usr/bin:/bin")
    listing = await list_files(project, root=project)
    assert [p.name for p in listing.files] == ["readme.md"]
    assert not marker.exists()
