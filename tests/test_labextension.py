"""The JupyterLab panel's packaging: one version, installed and enabled, shipped in the wheel."""

from __future__ import annotations

import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.version import Version

import zengine_jupyter
from zengine_jupyter.testing.components import require_component

REPO = Path(__file__).resolve().parents[1]
PACKAGE_JSON = REPO / "labextension" / "package.json"
NAME = "zengine-jupyter"
BIN = Path(sys.executable).parent
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _js_version() -> str:
    return str(json.loads(PACKAGE_JSON.read_text())["version"])


def _labextension_list(env: dict[str, str] | None = None) -> dict[str, list[str]]:
    """`jupyter labextension list`, as {folder: [extension lines]}."""
    done = subprocess.run(
        [str(BIN / "jupyter-labextension"), "list"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=env,
    )
    sections: dict[str, list[str]] = {}
    current = ""
    for line in ANSI.sub("", done.stdout + done.stderr).splitlines():
        if line.startswith("/"):
            current = line.strip()
            sections[current] = []
        elif line.startswith((" ", "\t")) and current:
            sections[current].append(line.strip())
    return sections


def test_python_and_javascript_versions_are_one() -> None:
    js = _js_version()
    assert Version(zengine_jupyter.__version__) == Version(js)
    assert Version(importlib.metadata.version("zengine-jupyter")) == Version(js)


def test_the_package_points_jupyterlab_at_its_built_panel() -> None:
    (entry,) = zengine_jupyter._jupyter_labextension_paths()
    assert entry["dest"] == NAME
    assert json.loads(PACKAGE_JSON.read_text())["name"] == NAME
    outdir = json.loads(PACKAGE_JSON.read_text())["jupyterlab"]["outputDir"]
    assert (PACKAGE_JSON.parent / outdir).resolve() == (
        Path(zengine_jupyter.__file__).parent / entry["src"]
    )


def test_jupyter_labextension_list_shows_it_enabled_ok() -> None:
    require_component("node")  # scripts/test builds the panel only where node is
    found = [
        line for lines in _labextension_list().values() for line in lines if line.startswith(NAME)
    ]
    assert found == [f"{NAME} v{_js_version()} enabled OK (python, {NAME})"]


@pytest.mark.slow
def test_the_wheel_ships_the_built_panel_and_widgets_and_works_without_node(tmp_path: Path) -> None:
    require_component("node")
    built = REPO / "zengine_jupyter" / "labextension"
    # a copy of what the wheel is built from; the panel is already built (skip-if-exists)
    src = tmp_path / "src"
    (src / "labextension").mkdir(parents=True)
    for name in ("pyproject.toml", "README.md", "LICENSE", ".gitignore"):
        shutil.copy2(REPO / name, src / name)
    for package in ("zengine_jupyter", "zengine"):
        shutil.copytree(REPO / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("package.json", "install.json"):
        shutil.copy2(REPO / "labextension" / name, src / "labextension" / name)
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(dist)],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    (wheel,) = dist.glob("*.whl")
    version = _js_version()
    share = f"zengine_jupyter-{version}.data/data/share/jupyter/labextensions/{NAME}/"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        shipped = json.loads(archive.read(share + "package.json"))
        version_py = archive.read("zengine_jupyter/_version.py").decode()
    assert shipped == json.loads((built / "package.json").read_text())
    assert shipped["version"] == version
    assert share + shipped["jupyterlab"]["_build"]["load"] in names
    assert share + "install.json" in names
    assert f'__version__ = "{version}"' in version_py
    assert not [n for n in names if "node_modules" in n or n.endswith(".ts")]
    assert not [n for n in names if n.startswith("zengine_jupyter/labextension/")]
    # the cell widgets' bundles travel inside the package (the kernel reads them as strings)
    widgets = {f"zengine_jupyter/kernel/_widgets/{n}" for n in
               ("turn.js", "status.js", "rewind.js", "setup.js", "widgets.css")}  # fmt: skip
    assert widgets <= set(names), sorted(widgets - set(names))

    # pip-install it into a fresh, empty environment and list it there with no node on PATH
    target = tmp_path / "target-env"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(target)], timeout=60, check=True
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(target / "bin" / "python"), "install",
         "-q", "--no-deps", "--no-index", "--disable-pip-version-check", str(wheel)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    env = {
        "PATH": str(BIN),
        "HOME": str(tmp_path),
        "JUPYTER_PATH": str(target / "share" / "jupyter"),
    }
    assert shutil.which("node", path=env["PATH"]) is None
    sections = _labextension_list(env)
    ours = sections[str(target / "share" / "jupyter" / "labextensions")]
    assert f"{NAME} v{version} enabled OK (python, {NAME})" in ours


def test_built_assets_and_node_modules_are_never_committed() -> None:
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, timeout=30, check=True
    )
    tracked = done.stdout.splitlines()
    assert "labextension/yarn.lock" in tracked
    leaked = [
        path
        for path in tracked
        if "node_modules/" in path
        or path.startswith(
            (
                "zengine_jupyter/labextension/",
                "zengine_jupyter/kernel/_widgets/",
                "labextension/lib/",
            )
        )
        or path == "zengine_jupyter/_version.py"
    ]
    assert leaked == []


def test_typescript_gates_run_in_scripts_test_before_pytest() -> None:
    """eslint, prettier and the JS unit tests are gates like ruff and mypy, in scripts/test."""
    scripts = json.loads(PACKAGE_JSON.read_text())["scripts"]
    assert "eslint" in scripts["lint:check"]
    assert "prettier --check" in scripts["prettier:check"]
    assert scripts["test"].startswith("vitest run")
    text = (REPO / "scripts" / "test").read_text()
    at = {gate: text.find(f"jlpm {gate})") for gate in ("lint:check", "prettier:check", "test")}
    assert all(index > 0 for index in at.values()), at
    assert max(at.values()) < text.index("exec pytest ")


def test_js_unit_tests_stay_out_of_the_built_panel() -> None:
    """test/ is neither built into the panel nor hashed by labext_ensure (no rebuild for it)."""
    tsconfig = json.loads((REPO / "labextension" / "tsconfig.json").read_text())
    assert tsconfig["include"] == ["src/**/*"]
    files = json.loads(PACKAGE_JSON.read_text())["files"]
    assert not [pattern for pattern in files if pattern.startswith("test")]
    common = (REPO / "scripts" / "_common.sh").read_text()
    (hashed,) = [line for line in common.splitlines() if "find package.json" in line]
    assert "test" not in hashed.split()
    assert "eslint.config.mjs" not in hashed
    tested = {p.name for p in (REPO / "labextension" / "test").glob("*.test.ts")}
    units = ("approvals", "dom", "rewind", "setup", "status", "toolcard", "widgets")
    assert {f"{n}.test.ts" for n in units} <= tested
