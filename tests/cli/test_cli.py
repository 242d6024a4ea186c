"""The ``zengine`` console script, run as a user would run it."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import zengine_jupyter
from zengine_jupyter.host import COMPONENTS
from zengine_jupyter.testing import run_cli_sync
from zengine_jupyter.testing.components import require_component


def test_version() -> None:
    done = run_cli_sync("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"zengine-jupyter {zengine_jupyter.__version__}"


def test_doctor_json_reports_components_truthfully(zengine_home: Path) -> None:
    done = run_cli_sync("doctor", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["data_dir"] == str(zengine_home)
    assert report["packages"]["ipykernel"].startswith("7.")
    by_name = {c["name"]: c for c in report["components"]}
    assert set(by_name) == {c.name for c in COMPONENTS}
    for spec in COMPONENTS:
        found = next((p for p in map(shutil.which, spec.executables) if p), None)
        entry = by_name[spec.name]
        assert entry["available"] is (found is not None), spec.name
        if found:
            assert entry["path"] == found
            assert entry["version"]
    if by_name["git"]["available"]:
        assert by_name["git"]["version"].startswith("git version")
    if by_name["bwrap"]["available"] and sys.platform == "linux":  # a sandbox was tried for real
        notice = report["sandbox_notice"]
        assert report["sandbox_backend"] == ("bubblewrap" if notice is None else None)
        assert notice is None or notice["reason"].startswith("bwrap cannot start a sandbox")


def test_doctor_names_the_install_command_of_what_is_missing(tmp_path: Path) -> None:
    git = require_component("git")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(git)
    env = {**os.environ, "PATH": str(bin_dir)}
    done = run_cli_sync("doctor", env=env)
    assert done.returncode == 0, done.stderr
    assert "ok       git" in done.stdout
    assert "missing  bwrap" in done.stdout
    assert "apt-get install -y bubblewrap" in done.stdout
    assert "apt-get install -y chromium" in done.stdout
    assert "  missing  bwrap is not installed; fix: install bubblewrap" in done.stdout


def test_no_command_prints_help() -> None:
    done = run_cli_sync()
    assert done.returncode == 0
    assert "doctor" in done.stdout
