"""``zengine checks`` and ``zengine verify`` as a user runs them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from zengine_jupyter.testing import run_cli_sync

FIXTURES = Path(__file__).parents[1] / "fixtures" / "verify"


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli_sync(*args, cwd=cwd, timeout=120)


def _copy(name: str, tmp_path: Path) -> Path:
    project = tmp_path / name
    shutil.copytree(FIXTURES / name, project)
    return project


def test_checks_json_lists_the_discovered_checks(tmp_path: Path) -> None:
    project = _copy("python_fail", tmp_path)
    done = _cli("checks", "--project", str(project), "--json")
    assert done.returncode == 0, done.stderr
    checks = json.loads(done.stdout)
    assert [c["id"] for c in checks] == ["python:pytest", "python:ruff", "python:ruff-format"]
    assert checks[0]["command"] == ["python", "-m", "pytest"]
    assert checks[0]["source"] == "discovered"


def test_checks_text_defaults_to_the_current_project(tmp_path: Path) -> None:
    project = _copy("pnpm_monorepo", tmp_path)
    (project / ".git").mkdir()  # the project root is the nearest .git
    done = _cli("checks", cwd=project / "packages" / "web")
    assert done.returncode == 0, done.stderr
    assert "node:typecheck@packages/web" in done.stdout
    assert "pnpm run typecheck" in done.stdout


def test_verify_runs_a_named_check_and_prints_its_record(
    tmp_path: Path, zengine_home: Path
) -> None:
    project = _copy("python_pass", tmp_path)
    done = _cli("verify", "--project", str(project), "python:pytest")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("PASS python:pytest (exit 0, ")
    assert "4 passed, 1 skipped" in done.stdout
    artifacts = list((zengine_home / "artifacts" / "verify").iterdir())
    assert len(artifacts) == 1
    assert "4 passed, 1 skipped" in artifacts[0].read_text()


def test_verify_json_and_failing_exit_status(tmp_path: Path) -> None:
    project = _copy("python_fail", tmp_path)
    done = _cli("verify", "--project", str(project), "--json", "python:pytest")
    assert done.returncode == 1
    (record,) = json.loads(done.stdout)
    assert record["check_id"] == "python:pytest"
    assert record["passed"] is False
    assert record["counts"] == {"passed": 1, "failed": 1, "skipped": 0, "errors": 0}


def test_verify_unknown_check_names_the_known_ones(tmp_path: Path) -> None:
    project = _copy("python_pass", tmp_path)
    done = _cli("verify", "--project", str(project), "nope")
    assert done.returncode == 1
    assert "unknown check(s) nope" in done.stderr
    assert "known: python:pytest" in done.stderr


def test_checks_apply_configured_entries_and_withhold_an_untrusted_projects(
    tmp_path: Path, zengine_home: Path
) -> None:
    from zengine_jupyter.config import TrustStore

    project = _copy("python_pass", tmp_path)
    (zengine_home / "settings.toml").write_text(
        '[[verification.checks]]\nid = "user:echo"\nkind = "lint"\ncommand = ["true"]\n'
    )
    (project / ".z-engine").mkdir()
    (project / ".z-engine" / "settings.toml").write_text(
        '[[verification.checks]]\nid = "python:pytest"\nkind = "test"\ncommand = "touch marker"\n'
    )
    untrusted = json.loads(_cli("checks", "--project", str(project), "--json").stdout)
    assert [(c["id"], c["source"]) for c in untrusted] == [
        ("python:pytest", "discovered"),
        ("user:echo", "settings"),
    ]
    TrustStore().trust(project)
    trusted = json.loads(_cli("checks", "--project", str(project), "--json").stdout)
    assert [(c["id"], c["command"]) for c in trusted] == [
        ("python:pytest", "touch marker"),
        ("user:echo", ["true"]),
    ]
    assert not (project / "marker").exists()  # listing runs nothing
