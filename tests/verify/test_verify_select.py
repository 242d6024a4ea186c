"""Checks relevant to the changed paths."""

from __future__ import annotations

import shutil
from pathlib import Path

from zengine_jupyter.protocol import CheckSpec
from zengine_jupyter.verify import discover_checks_sync, select_checks

FIXTURES = Path(__file__).parents[1] / "fixtures" / "verify"


def _ids(checks: list[CheckSpec]) -> list[str]:
    return [c.id for c in checks]


def test_a_change_in_one_package_selects_that_packages_checks(tmp_path: Path) -> None:
    project = tmp_path / "mono"
    shutil.copytree(FIXTURES / "pnpm_monorepo", project)
    checks = discover_checks_sync(project)
    assert _ids(select_checks(checks, ["packages/web/src/app.ts"])) == [
        "node:test@packages/web",
        "node:build@packages/web",
        "node:typecheck@packages/web",
    ]
    assert _ids(select_checks(checks, ["./packages/api/index.js"])) == [
        "node:test@packages/api",
        "node:format@packages/api",
    ]
    assert _ids(select_checks(checks, ["README.md"])) == ["node:build", "node:lint"]
    assert select_checks(checks, []) == []


def test_each_ecosystem_picks_its_own_deepest_folder() -> None:
    checks = [
        CheckSpec(id="python:pytest", kind="test", command=["pytest"], ecosystem="python"),
        CheckSpec(
            id="python:pytest@svc",
            kind="test",
            command=["pytest"],
            cwd="svc",
            ecosystem="python",
        ),
        CheckSpec(id="make:test", kind="test", command=["make", "test"], ecosystem="make"),
        CheckSpec(id="custom", kind="test", command="./check.sh", cwd="tools"),
    ]
    assert _ids(select_checks(checks, ["svc/api.py"])) == ["python:pytest@svc", "make:test"]
    assert _ids(select_checks(checks, ["svcx/a.py"])) == ["python:pytest", "make:test"]
    assert _ids(select_checks(checks, ["tools/check.sh"])) == [
        "python:pytest",
        "make:test",
        "custom",
    ]


def test_notebooks_check_is_selected_by_notebooks_and_their_folders(tmp_path: Path) -> None:
    project = tmp_path / "nb"
    shutil.copytree(FIXTURES / "notebooks", project)
    (project / "lib").mkdir()
    (project / "lib" / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    checks = discover_checks_sync(project)
    assert _ids(checks) == ["python:pytest@lib", "notebooks:run"]
    assert _ids(select_checks(checks, ["notebooks/data.csv"])) == ["notebooks:run"]
    assert _ids(select_checks(checks, ["other/new.ipynb"])) == ["notebooks:run"]
    assert _ids(select_checks(checks, ["lib/x.py"])) == ["python:pytest@lib"]
