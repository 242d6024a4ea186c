"""What snapshots leave out besides .gitignore: the user's global excludes (git's
``core.excludesFile``, default ``~/.config/git/ignore``) and ``.z-engine/worktrees/``. Real git
and a real HOME in a temporary folder; the engine's own matcher (Glob, Grep, the fingerprint)
agrees with git about the global excludes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from zengine_jupyter.host import IgnoreRules, fingerprinted_files, global_excludes_file
from zengine_jupyter.host.checkpoint import ShadowRepository
from zengine_jupyter.protocol import CheckpointInfo


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real, empty HOME for this test (no XDG_CONFIG_HOME, no GIT_CONFIG_GLOBAL)."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    return folder


def _files(project: Path) -> None:
    (project / "keep.py").write_text("x = 1\n")
    (project / "notes.secret").write_text("mine\n")
    (project / "private").mkdir()
    (project / "private" / "diary.txt").write_text("mine\n")


async def _stored(shadow: ShadowRepository, git: str) -> list[str]:
    info = await shadow.snapshot("m")
    assert isinstance(info, CheckpointInfo), info
    env = {**os.environ, "GIT_DIR": str(shadow.paths.git_dir)}
    listed = subprocess.run(
        [git, "ls-tree", "-r", "--name-only", info.id],
        env=env, capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    return sorted(listed.split())


async def test_the_default_global_ignore_file_is_left_out_of_snapshots(
    shadow: ShadowRepository, project: Path, git: str, home: Path
) -> None:
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "ignore").write_text("*.secret\n/private/\n")
    _files(project)
    assert await _stored(shadow, git) == ["keep.py"]


async def test_core_excludes_file_of_the_users_gitconfig_is_honoured(
    shadow: ShadowRepository, project: Path, git: str, home: Path
) -> None:
    """``~`` expanded, quoted, set through an ``[include]`` as dotfile managers do; the
    last setting wins (the XDG config first, then ~/.gitconfig)."""
    (home / "ignores").write_text("*.secret\nprivate/\n")
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "config").write_text("[core]\n\texcludesFile = ~/unused\n")
    (home / "extra.inc").write_text('[core]\n  excludesfile = "~/ignores" ; mine\n')
    (home / ".gitconfig").write_text("[user]\n\tname = Ann\n[include]\n\tpath = extra.inc\n")
    _files(project)
    assert global_excludes_file() == home / "ignores"
    assert await _stored(shadow, git) == ["keep.py"]


async def test_a_projects_git_config_never_names_the_excludes(
    shadow: ShadowRepository, project: Path, git: str, home: Path, tmp_path: Path
) -> None:
    """A cloned project's ``.git/config`` could hide files from checkpoints (so a rewind
    would not restore them): only the user's own global config is read."""
    subprocess.run([git, "init", "-q", str(project)], check=True, timeout=60)
    hiding = tmp_path / "hide-everything"
    hiding.write_text("*.py\n")
    with (project / ".git" / "config").open("a") as config:
        config.write(f"[core]\n\texcludesFile = {hiding}\n")
    _files(project)
    assert await _stored(shadow, git) == ["keep.py", "notes.secret", "private/diary.txt"]


async def test_z_engine_worktrees_are_left_out_of_snapshots(
    shadow: ShadowRepository, project: Path, git: str, home: Path
) -> None:
    """A worktree agent's copy of the project is its own checkout, not project files."""
    agent = project / ".z-engine" / "worktrees" / "agent-1"
    agent.mkdir(parents=True)
    (agent / "keep.py").write_text("x = 2\n")
    (project / ".z-engine" / "commands").mkdir()
    (project / ".z-engine" / "commands" / "review.md").write_text("review\n")
    (project / "keep.py").write_text("x = 1\n")
    assert await _stored(shadow, git) == [".z-engine/commands/review.md", "keep.py"]


def test_the_engines_matcher_agrees_with_git_about_global_excludes(
    project: Path, git: str, home: Path
) -> None:
    """Glob, Grep and the fingerprint walk with ``IgnoreRules``: the same files as git's
    own ``ls-files --others --exclude-standard`` under this HOME."""
    (home / ".gitconfig").write_text("[core]\n\texcludesFile = ~/.gitignore_global\n")
    (home / ".gitignore_global").write_text("*.secret\nprivate/\n!private/keep.txt\n")
    subprocess.run([git, "init", "-q", str(project)], check=True, timeout=60)
    _files(project)
    (project / "sub").mkdir()
    (project / "sub" / "more.secret").write_text("x\n")
    (project / "private" / "keep.txt").write_text("x\n")  # a file in an ignored folder
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    listed = subprocess.run(
        [git, "ls-files", "--others", "--exclude-standard"],
        cwd=project, env=env, capture_output=True, text=True, check=True, timeout=60,
    ).stdout.split()  # fmt: skip
    assert sorted(listed) == ["keep.py"]
    assert sorted(fingerprinted_files(project)) == sorted(listed)
    rules = IgnoreRules.for_root(project)
    assert rules.ignored("notes.secret", False)
    assert rules.ignored("private", True)
    assert not rules.ignored("keep.py", False)


@pytest.mark.parametrize(
    "gitconfig",
    [
        "[core]\n\texcludesFile = ~/a\n",
        '[core]\n\texcludesfile = "~/b"  # comment\n',
        "[Core]\n\tExcludesFile=~/c\n[core]\n\texcludesFile = ~/d\n",
        '[core "sub"]\n\texcludesFile = ~/e\n[user]\n\tname = x\n',
        "[core] excludesFile = ~/f\n",
        "; only comments\n# here\n",
    ],
)
def test_the_excludes_file_is_the_one_git_finds(gitconfig: str, git: str, home: Path) -> None:
    (home / ".gitconfig").write_text(gitconfig)
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    asked = subprocess.run(
        [git, "config", "--global", "--type=path", "--get", "core.excludesFile"],
        cwd=home, env=env, capture_output=True, text=True, timeout=60,
    ).stdout.strip()  # fmt: skip
    default = home / ".config" / "git" / "ignore"
    assert global_excludes_file() == (Path(asked) if asked else default)
