"""Issue 26: on a shared host (JupyterHub's single-user servers as Unix users), one user's
sandboxed agent must not list or read another user's home folder, even when that folder is open
to others (0755: Debian before 12, ``adduser`` on many hubs).

A real Unix user with a 0755 home holding a notebook and settings is the neighbour; the agent's
commands run under real bubblewrap (as root here, which reads any file: only the sandbox's own
view can hide them). A project the agent works on inside the neighbour's home (a shared folder)
stays reachable.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from zengine_jupyter.host.sandbox import (
    CommandOrigin,
    SandboxOptions,
    build_bwrap_argv,
    derive_profile,
    detect_backend,
    plan_shell,
    run_planned,
)
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.unix_users import UnixUser, require_root, unix_users

MARKER = "NEIGHBOUR-NOTEBOOK-5d1c"


@pytest.fixture(scope="module")
def neighbour() -> Iterator[UnixUser]:
    require_component("bwrap")
    require_root()
    with unix_users("zjhneighbour") as [user]:
        user.home.chmod(0o755)
        (user.home / "notes.ipynb").write_text(f'{{"cells": ["{MARKER}"]}}')
        config = user.home / ".config/zengine"
        config.mkdir(parents=True)
        (config / "settings.toml").write_text(f'# {MARKER}\n[model]\nmain = "x"\n')
        shared = user.home / "shared"
        shared.mkdir()
        (shared / "data.csv").write_text("a,b\n")
        for path in [user.home, *user.home.rglob("*")]:
            os.chown(path, user.uid, user.gid)
        shared.chmod(0o777)  # open to everyone (the sandbox drops root's powers over files)
        yield user


def _options(tmp_path: Path, root: Path | None = None) -> SandboxOptions:
    home, temp = tmp_path / "home", tmp_path / "tmp"
    for folder in (home, temp):
        folder.mkdir(exist_ok=True)
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    return SandboxOptions(root=root or project, temp_dir=temp, home=home, enabled=True)


def _run(options: SandboxOptions, script: str) -> tuple[int, str, str]:
    async def go() -> tuple[int, str, str]:
        backend = await detect_backend()
        plan = plan_shell(options, backend, CommandOrigin.AGENT_BASH, script, options.root)
        assert plan.profile is not None, plan.notice
        done = await run_planned(plan)
        return done.returncode, done.stdout.decode(), done.stderr.decode()

    return asyncio.run(go())


def test_agent_cannot_list_or_read_an_open_home(neighbour: UnixUser, tmp_path: Path) -> None:
    """Attack: the agent lists another user's 0755 home and reads their notebook and
    settings through the sandbox's read-only view of the whole file system."""
    home = neighbour.home
    script = f"ls -A {home}; cat {home}/notes.ipynb; cat {home}/.config/zengine/settings.toml"
    code, out, err = _run(_options(tmp_path), script)
    assert MARKER not in out + err
    for name in ("notes.ipynb", ".config", "shared"):
        assert name not in out, out
    assert code != 0  # the last cat found nothing to read


def test_a_project_inside_another_home_stays_reachable(neighbour: UnixUser, tmp_path: Path) -> None:
    """A shared project in the neighbour's home is bound back over the hidden home: the agent
    works in it, and still sees nothing else of that home."""
    shared = neighbour.home / "shared"
    code, out, err = _run(
        _options(tmp_path, root=shared),
        f"cat data.csv && echo ok > made.txt && ls -A {neighbour.home}",
    )
    assert code == 0, err
    assert out.startswith("a,b\n")
    assert (shared / "made.txt").read_text() == "ok\n"
    assert "notes.ipynb" not in out
    (shared / "made.txt").unlink()
    code, _out, err = _run(_options(tmp_path, root=shared), f"touch {neighbour.home}/planted")
    assert code != 0, err
    assert not (neighbour.home / "planted").exists()


def test_other_homes_are_covered_before_the_writable_areas(tmp_path: Path) -> None:
    """The order that keeps a shared project reachable: the tmpfs over a home comes first."""
    options = _options(tmp_path)
    other = tmp_path / "other-home"
    other.mkdir()
    profile = derive_profile(options, others=[other, tmp_path / "absent"], hidden=())
    assert profile.foreign == (other,)
    argv = build_bwrap_argv(profile, ["true"], cwd=options.root, seccomp_fd=3)
    covered = argv.index("--tmpfs", argv.index(str(other)) - 1)
    assert argv[covered + 1] == str(other)
    assert covered < argv.index("--bind")
    # a home that is the project itself (or holds it, or the user's own home) is not covered
    mine = derive_profile(options, others=[options.root, options.home, tmp_path], hidden=())
    assert mine.foreign == ()


def test_a_home_added_after_a_reused_profile_is_hidden_too(tmp_path: Path) -> None:
    """Attack: the sandbox reuses the profile it derived for the same options (issue 25); a
    user added since (a new hub user) must not be readable through that older profile."""
    require_component("bwrap")
    require_root()
    options = _options(tmp_path)
    assert _run(options, "true")[0] == 0  # derived now, kept for the next command
    with unix_users("zjhlatecomer") as [user]:
        user.home.chmod(0o755)
        (user.home / "late.txt").write_text(MARKER)
        os.chown(user.home / "late.txt", user.uid, user.gid)
        _code, out, err = _run(options, f"ls -A {user.home}; cat {user.home}/late.txt")
    assert MARKER not in out + err
    assert "late.txt" not in out
