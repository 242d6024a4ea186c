"""The import-linter contract holds, and it bites: a forbidden import makes it fail."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINT_IMPORTS = str(Path(sys.executable).with_name("lint-imports"))


def _copy_project(dest: Path) -> Path:
    shutil.copytree(
        REPO / "zengine_jupyter",
        dest / "zengine_jupyter",
        ignore=shutil.ignore_patterns("__pycache__", "labextension"),
    )
    shutil.copy(REPO / "pyproject.toml", dest / "pyproject.toml")
    return dest


def _lint(project: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(project)}
    return subprocess.run(
        [LINT_IMPORTS, "--no-cache"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return _copy_project(tmp_path)


def test_the_copy_is_clean(project: Path) -> None:
    done = _lint(project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 3 kept, 0 broken" in done.stdout


@pytest.mark.parametrize("module", ["IPython", "ipywidgets", "anywidget", "jupyter_client"])
def test_a_jupyter_import_below_kernel_breaks_the_contract(project: Path, module: str) -> None:
    (project / "zengine_jupyter" / "store" / "_leak.py").write_text(f"import {module}\n")
    done = _lint(project)
    assert done.returncode != 0
    assert "No Jupyter or IPython below kernel/ BROKEN" in done.stdout
    assert f"zengine_jupyter.store._leak -> {module}" in done.stdout


def test_a_lower_layer_importing_the_engine_breaks_the_layers(project: Path) -> None:
    (project / "zengine_jupyter" / "config" / "_leak.py").write_text(
        "import zengine_jupyter.engine\n"
    )
    done = _lint(project)
    assert done.returncode != 0
    assert "Layers" in done.stdout
    assert "BROKEN" in done.stdout


@pytest.mark.parametrize(
    ("importer", "line"),
    [
        ("engine", "from zengine_jupyter.store._replay import replay\n"),
        ("kernel", "import zengine_jupyter.engine._session\n"),
        ("cli", "from zengine_jupyter.protocol._records import MessageRecord\n"),
    ],
)
def test_importing_another_packages_private_module_breaks_the_contract(
    project: Path, importer: str, line: str
) -> None:
    (project / "zengine_jupyter" / importer / "_leak.py").write_text(line)
    done = _lint(project)
    assert done.returncode != 0
    assert "Private modules are imported only from within their package BROKEN" in done.stdout
    assert f"zengine_jupyter.{importer}._leak -> " in done.stdout


def test_a_package_may_import_its_own_private_modules(project: Path) -> None:
    (project / "zengine_jupyter" / "store" / "_leak.py").write_text(
        "from zengine_jupyter.store._replay import replay\n"
        "from zengine_jupyter.protocol import MessageRecord\n"
    )
    done = _lint(project)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_bans_the_import_outside_kernel(project: Path) -> None:
    (project / "zengine_jupyter" / "engine" / "_leak.py").write_text("import IPython\n")
    ruff = str(Path(sys.executable).with_name("ruff"))
    done = subprocess.run(
        [ruff, "check", "--select", "TID251", "zengine_jupyter"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "zengine_jupyter/engine/_leak.py" in done.stdout
