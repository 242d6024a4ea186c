"""Discovery on the fixture projects matches the expected checks exactly; it never runs anything."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from zengine_jupyter.protocol import CheckSpec
from zengine_jupyter.verify import discover_checks, merge_checks
from zengine_jupyter.verify.discovery import MAX_DEPTH, discover_checks_sync
from zengine_jupyter.verify.discovery.ecosystems._go import GOFMT

FIXTURES = Path(__file__).parents[1] / "fixtures" / "verify"
CMAKE_BUILD = "cmake -S . -B build && cmake --build build"
NB = "zengine_jupyter.verify.notebooks"

Row = tuple[str, str, "list[str] | str", str, "str | None"]
EXPECTED: dict[str, list[Row]] = {
    "python_pass": [("python:pytest", "test", ["python", "-m", "pytest"], ".", "pytest")],
    "python_fail": [
        ("python:pytest", "test", ["python", "-m", "pytest"], ".", "pytest"),
        ("python:ruff", "lint", ["ruff", "check", "."], ".", None),
        ("python:ruff-format", "format", ["ruff", "format", "--check", "."], ".", None),
    ],
    "python_unittest": [
        (
            "python:unittest",
            "test",
            ["python", "-m", "unittest", "discover", "-s", "tests", "-t", "."],
            ".",
            "unittest",
        )
    ],
    "python_uv": [
        ("python:pytest", "test", ["uv", "run", "pytest"], ".", "pytest"),
        ("python:mypy", "typecheck", ["uv", "run", "mypy", "."], ".", None),
        ("python:pyright", "typecheck", ["uv", "run", "pyright"], ".", None),
    ],
    "node_test": [("node:test", "test", ["npm", "test"], ".", "node")],
    "notebooks": [
        (
            "notebooks:run",
            "test",
            ["python", "-m", NB, "notebooks/bad.ipynb", "notebooks/good.ipynb"],
            ".",
            "notebooks",
        )
    ],
    "cargo_workspace": [
        ("cargo:test", "test", ["cargo", "test", "--workspace"], ".", "cargo"),
        ("cargo:build", "build", ["cargo", "build", "--workspace"], ".", None),
        (
            "cargo:clippy",
            "lint",
            ["cargo", "clippy", "--workspace", "--", "-D", "warnings"],
            ".",
            None,
        ),
        ("cargo:fmt", "format", ["cargo", "fmt", "--all", "--check"], ".", None),
    ],
    "go_mod": [
        ("go:test", "test", ["go", "test", "./..."], ".", "go"),
        ("go:build", "build", ["go", "build", "./..."], ".", None),
        ("go:vet", "lint", ["go", "vet", "./..."], ".", None),
        ("go:gofmt", "format", GOFMT, ".", None),
    ],
    "makefile": [
        ("make:test", "test", ["make", "test"], ".", None),
        ("make:check", "test", ["make", "check"], ".", None),
        ("make:lint", "lint", ["make", "lint"], ".", None),
    ],
    "cmake": [
        ("cmake:build", "build", CMAKE_BUILD, ".", None),
        (
            "cmake:ctest",
            "test",
            f"{CMAKE_BUILD} && ctest --test-dir build --output-on-failure",
            ".",
            "ctest",
        ),
    ],
    "gradle": [
        ("gradle:test", "test", ["./gradlew", "test"], ".", None),
        ("gradle:build", "build", ["./gradlew", "assemble"], ".", None),
    ],
    "maven": [
        ("maven:test", "test", ["mvn", "-B", "test"], ".", "maven"),
        ("maven:build", "build", ["mvn", "-B", "package", "-DskipTests"], ".", None),
    ],
    "deno": [
        ("deno:test", "test", ["deno", "task", "test"], ".", "deno"),
        ("deno:lint", "lint", ["deno", "lint"], ".", None),
        ("deno:fmt", "format", ["deno", "fmt", "--check"], ".", None),
        ("deno:check", "typecheck", ["deno", "task", "check"], ".", None),
    ],
    "pnpm_monorepo": [
        ("node:build", "build", ["pnpm", "run", "build"], ".", None),
        ("node:lint", "lint", ["pnpm", "run", "lint"], ".", None),
        ("node:test@packages/api", "test", ["pnpm", "test"], "packages/api", "jest"),
        ("node:format@packages/api", "format", ["pnpm", "run", "format"], "packages/api", None),
        ("node:test@packages/web", "test", ["pnpm", "test"], "packages/web", "vitest"),
        ("node:build@packages/web", "build", ["pnpm", "run", "build"], "packages/web", None),
        (
            "node:typecheck@packages/web",
            "typecheck",
            ["pnpm", "run", "typecheck"],
            "packages/web",
            None,
        ),
    ],
    "yarn_app": [
        ("node:test", "test", ["yarn", "test"], ".", "mocha"),
        ("node:format", "format", ["yarn", "format:check"], ".", None),
    ],
    "bun_app": [
        ("node:test", "test", ["bun", "run", "test"], ".", "bun"),
        ("node:build", "build", ["bun", "run", "build"], ".", None),
    ],
}


def _rows(checks: list[CheckSpec]) -> list[Row]:
    return [(c.id, c.kind, c.command, c.cwd, c.parser) for c in checks]


def test_every_fixture_project_has_expectations() -> None:
    assert {p.name for p in FIXTURES.iterdir() if p.is_dir()} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_discovery_matches_the_fixture_exactly(name: str, tmp_path: Path) -> None:
    project = tmp_path / name
    shutil.copytree(FIXTURES / name, project)
    checks = await discover_checks(project)
    assert _rows(checks) == EXPECTED[name]
    assert all(c.source == "discovered" for c in checks)
    assert all(c.ecosystem == c.id.split(":")[0] for c in checks)


def test_discovery_runs_nothing(tmp_path: Path) -> None:
    project = tmp_path / "p"
    shutil.copytree(FIXTURES / "makefile", project)
    (project / "Makefile").write_text("test:\n\ttouch ran-marker\n")
    assert [c.id for c in discover_checks_sync(project)] == ["make:test"]
    assert not (project / "ran-marker").exists()


def _package(folder: Path, scripts: dict[str, str]) -> None:
    import json

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"name": folder.name, "scripts": scripts}))


def test_vendored_ignored_and_too_deep_folders_are_skipped(tmp_path: Path) -> None:
    _package(tmp_path / "node_modules" / "dep", {"test": "jest"})
    _package(tmp_path / "vendor" / "lib", {"test": "jest"})
    _package(tmp_path / "generated" / "client", {"test": "jest"})
    _package(tmp_path / "a" / "b" / "c" / "d", {"test": "jest"})  # four deep: found
    _package(tmp_path / "a" / "b" / "c" / "d" / "e", {"test": "jest"})  # five deep: not
    (tmp_path / ".gitignore").write_text("generated/\n")
    ids = [c.id for c in discover_checks_sync(tmp_path)]
    assert ids == ["node:test@a/b/c/d"]
    assert MAX_DEPTH == 4


def test_placeholder_npm_test_script_is_not_a_check(tmp_path: Path) -> None:
    _package(tmp_path, {"test": 'echo "Error: no test specified" && exit 1', "lint": "eslint ."})
    assert [c.id for c in discover_checks_sync(tmp_path)] == ["node:lint"]


def test_hatch_and_poetry_projects_run_pytest_their_way(tmp_path: Path) -> None:
    hatch = tmp_path / "hatch"
    hatch.mkdir()
    (hatch / "pyproject.toml").write_text(
        "[tool.hatch.envs.default]\ndependencies = ['pytest']\n[tool.pytest.ini_options]\n"
    )
    poetry = tmp_path / "poetry"
    poetry.mkdir()
    (poetry / "pyproject.toml").write_text("[tool.poetry]\nname='x'\n[tool.mypy]\nfiles=['x']\n")
    (poetry / "poetry.lock").write_text("")
    (poetry / "conftest.py").write_text("")
    assert _rows(discover_checks_sync(hatch)) == [
        ("python:pytest", "test", ["hatch", "test"], ".", "pytest")
    ]
    assert _rows(discover_checks_sync(poetry)) == [
        ("python:pytest", "test", ["poetry", "run", "pytest"], ".", "pytest"),
        ("python:mypy", "typecheck", ["poetry", "run", "mypy"], ".", None),
    ]


def test_unittest_start_folder_without_a_package(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "test_one.py").write_text("")
    assert _rows(discover_checks_sync(tmp_path)) == [
        (
            "python:unittest",
            "test",
            ["python", "-m", "unittest", "discover", "-s", "test"],
            ".",
            "unittest",
        )
    ]


def test_settings_entries_add_and_replace() -> None:
    discovered = [
        CheckSpec(id="python:pytest", kind="test", command=["python", "-m", "pytest"]),
        CheckSpec(id="python:ruff", kind="lint", command=["ruff", "check", "."]),
    ]
    configured = [
        CheckSpec(id="python:pytest", kind="test", command="pytest -x -q", source="settings"),
        CheckSpec(id="data", kind="test", command=["make", "data-check"], source="settings"),
    ]
    merged = merge_checks(discovered, configured)
    assert [(c.id, c.command, c.source) for c in merged] == [
        ("python:pytest", "pytest -x -q", "settings"),
        ("python:ruff", ["ruff", "check", "."], "discovered"),
        ("data", ["make", "data-check"], "settings"),
    ]
    assert merge_checks(discovered, configured, trusted=False) == discovered
