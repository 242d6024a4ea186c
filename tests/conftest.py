from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from zengine_jupyter.testing import ProviderServer, provider_in_thread, write_provider_settings

pytest_plugins = ["zengine_jupyter.testing.pytest_plugin"]

# tests/fixtures holds small real projects (with their own test files) that tests copy and run.
collect_ignore = ["fixtures"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder ``proj`` with a two-line ``pipeline.py`` (``RATE = 1``); a folder's or
    a module's own ``project`` fixture overrides this one."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pipeline.py").write_text("RATE = 1\nprint('rate', RATE)\n")
    return root


@pytest.fixture
def server(zengine_home: Path) -> Iterator[ProviderServer]:
    """A provider fake on its own thread (for sync tests and kernels), and the user's settings
    pointing at it; script it with ``server.add(Reply(...))``."""
    with provider_in_thread() as srv:
        write_provider_settings(zengine_home, srv.base_url)
        yield srv


# ------------------------------------------------------------------ parallel runs (pytest-xdist)
# `scripts/test` runs the suite on two workers (`-n 2 --dist loadgroup`; ZENGINE_TEST_WORKERS=0
# for one process). Every test of a module that starts a JupyterLab or a Chromium belongs to
# one group, run one after another on one worker: two browsers (each with its lab and kernels)
# never compete for the two cores, and the other worker takes the rest of the suite meanwhile.
# Every test of a module that creates Unix users (`unix_users(`, fixed names) belongs to another
# group: a module-scoped fixture would otherwise run on both workers, and one worker's teardown
# would remove the user the other is using. Every other test is a group of its own.
# (xdist's own `xdist_group` marker does nothing under pytest 9: its worker renames
# `item._nodeid`, which pytest 9 no longer reads; so the scheduler asks this file instead.)
_LAB_WORDS = ("chromium_page(", "launch_chromium(", "running_lab(", '"--no-browser"')
_WITH_UNIX_USERS = "RUN_WITH_UNIX_USERS = True"
"""A module that says so runs in the unix-users group too: a user added or removed on the other
worker changes every sandbox profile (other users' homes are covered), which retires a warm
sandbox in the middle of a test that watches one."""
_SHARED_SERVER = "lsp_manager_fixture("
"""A module that starts one language server for all its tests (``testing.lsp``) keeps them on
one worker: split over two, the second worker's server is asked before it has analysed the
project (basedpyright then answers workspace symbols with nothing)."""


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    groups: dict[str, str | None] = {}

    def group_of(nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        if path not in groups:
            file = config.rootpath / path
            text = file.read_text(encoding="utf-8") if file.suffix == ".py" else ""
            groups[path] = (
                "lab"
                if any(word in text for word in _LAB_WORDS)
                else "unix-users"
                if "unix_users(" in text or _WITH_UNIX_USERS in text
                else path  # its tests share one language server: split, each worker's is cold
                if _SHARED_SERVER in text
                else None
            )
        return groups[path] or nodeid

    def split_scope(_self: object, nodeid: str) -> str:
        return group_of(nodeid)

    # built with type(): mypy accepts it whether or not this venv has xdist installed
    scheduling = type("LabGroupScheduling", (LoadScopeScheduling,), {"_split_scope": split_scope})
    scheduler: object = scheduling(config, log)
    return scheduler


# ------------------------------------------------------------------ no test rewrites the repository
# (issue 22 acceptance 4): `git status --porcelain` is the same after the run as before it, and
# empty after it under CI=true (screenshots and other outputs go to .ci-artifacts/, gitignored).
_REPO = Path(__file__).resolve().parents[1]


def _git_status() -> list[str] | None:
    """The repository's ``git status --porcelain`` lines; None outside a git checkout."""
    try:
        done = subprocess.run(["git", "-C", str(_REPO), "status", "--porcelain"],
                              capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.splitlines() if done.returncode == 0 else None


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_STATUS_BEFORE] = _git_status()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    before = session.config.stash.get(_STATUS_BEFORE, None)
    after = _git_status()
    if before is None or after is None:
        return
    changed = sorted(set(after) - set(before))
    if os.environ.get("CI") == "true":
        changed = after
    if changed:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.ensure_newline()
            what = "(write them under .ci-artifacts/ or tmp_path)"
            reporter.write_line(f"tests changed files git does not ignore {what}:", red=True)
            for line in changed:
                reporter.write_line(f"  {line}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_STATUS_BEFORE = pytest.StashKey[list[str] | None]()
