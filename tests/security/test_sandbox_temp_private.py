"""Issue 26: on a shared host, what a user's sandboxed agent writes to its temporary folder must
not land world-readable in the shared ``/tmp`` (commands write with the umask, usually 022),
and a folder another user planted there must not become that temporary folder.

The shared temporary folder is a 1777 stand-in (``$TMPDIR``); the command runs under real
bubblewrap with the options a chat derives from its settings.
"""

from __future__ import annotations

import asyncio
import os
import stat
import tempfile
from pathlib import Path

import pytest

from zengine_jupyter.config import Settings, private_temp_dir
from zengine_jupyter.engine._sandbox import sandbox_options
from zengine_jupyter.host.sandbox import CommandOrigin, detect_backend, plan_shell, run_planned
from zengine_jupyter.testing.components import require_component

NOBODY = 65534


@pytest.fixture
def shared_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    shared.chmod(0o1777)
    monkeypatch.setenv("TMPDIR", str(shared))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return shared


def _open_to_others(path: Path, top: Path) -> bool:
    """Whether another user could read ``path``: o+r on it, o+x on each folder up to ``top``."""
    folders = [p for p in path.parents if p == top or top in p.parents]
    return bool(path.stat().st_mode & 0o004) and all(p.stat().st_mode & 0o001 for p in folders)


def test_agent_temp_files_are_not_world_readable(shared_tmp: Path, tmp_path: Path) -> None:
    """Attack: another user reads what the agent's command wrote to ``$TMPDIR`` (a scratch
    copy of data, a downloaded token), left 0644 in the shared /tmp."""
    require_component("bwrap")
    project = tmp_path / "project"
    project.mkdir()
    settings = Settings.model_validate({"shell": {"sandbox": {"enabled": True}}})
    options = sandbox_options(settings, project)

    async def go() -> str:
        backend = await detect_backend()
        script = 'umask 022; echo scratch > "$TMPDIR/scratch.txt"; echo "$TMPDIR/scratch.txt"'
        plan = plan_shell(options, backend, CommandOrigin.AGENT_BASH, script, project)
        assert plan.profile is not None, plan.notice
        done = await run_planned(plan)
        assert done.ok, done.stderr
        return done.stdout.decode().strip()

    written = Path(asyncio.run(go()))
    assert written.read_text() == "scratch\n"
    assert shared_tmp in written.parents
    assert not _open_to_others(written, shared_tmp)


def test_a_planted_temp_folder_is_not_used(shared_tmp: Path) -> None:
    """Attack: another user creates the predictable ``zengine-<uid>`` folder (or a link named
    so) in the shared /tmp first, to read or swap what the agent writes there."""
    if os.geteuid() != 0:
        pytest.skip("needs root to plant a folder owned by another user")
    planted = shared_tmp / f"zengine-{os.getuid()}"
    planted.mkdir()
    planted.chmod(0o777)
    os.chown(planted, NOBODY, NOBODY)
    chosen = private_temp_dir()
    assert chosen != planted
    st = chosen.lstat()
    assert stat.S_ISDIR(st.st_mode)
    assert st.st_uid == os.getuid()
    assert st.st_mode & 0o777 == 0o700
    planted.rmdir()
    elsewhere = shared_tmp / "elsewhere"
    elsewhere.mkdir()
    planted.symlink_to(elsewhere)
    linked = private_temp_dir()
    assert linked != planted
    assert not linked.is_symlink()
    assert elsewhere not in linked.parents


def test_the_private_temp_folder_is_kept_private(shared_tmp: Path) -> None:
    """Our own folder, loosened by someone's chmod, is tightened to 0700 again."""
    first = private_temp_dir()
    assert first.parent == shared_tmp
    first.chmod(0o755)
    assert private_temp_dir() == first
    assert first.stat().st_mode & 0o777 == 0o700
