"""Checks run for real on the fixture projects; their records carry what the spec lists."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest

from zengine_jupyter.host import fingerprint_tree
from zengine_jupyter.protocol import CheckRecord, CheckSpec, TestCounts, VerificationError
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.verify import (
    TAIL_BYTES,
    CheckInvocation,
    CheckOutput,
    RunCheckOptions,
    discover_checks,
    resolve_invocation,
    run_check,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "verify"


def _copy(name: str, tmp_path: Path) -> Path:
    project = tmp_path / name
    shutil.copytree(FIXTURES / name, project)
    return project


async def _run_discovered(project: Path, tmp_path: Path, check_id: str) -> CheckRecord:
    checks = {c.id: c for c in await discover_checks(project)}
    options = RunCheckOptions(project_root=project, artifacts_dir=tmp_path / "artifacts")
    return await run_check(checks[check_id], options)


def _assert_evidence(record: CheckRecord, project: Path) -> None:
    assert record.artifact is not None
    full = Path(record.artifact).read_text(encoding="utf-8")
    assert full.endswith(record.output_tail)
    assert record.duration_s > 0
    assert record.started <= record.finished
    # the project's own ignore file covers the caches the run writes: still fresh
    assert record.fingerprint_before == record.fingerprint_after
    assert record.fingerprint_after == fingerprint_tree(project).digest


async def test_pytest_passing_project(tmp_path: Path) -> None:
    project = _copy("python_pass", tmp_path)
    record = await _run_discovered(project, tmp_path, "python:pytest")
    assert (record.exit_code, record.passed) == (0, True), record.output_tail
    assert record.counts == TestCounts(passed=4, failed=0, skipped=1, errors=0)
    assert record.command == ["python", "-m", "pytest"]
    assert "4 passed, 1 skipped" in record.output_tail
    _assert_evidence(record, project)


async def test_pytest_failing_project(tmp_path: Path) -> None:
    project = _copy("python_fail", tmp_path)
    record = await _run_discovered(project, tmp_path, "python:pytest")
    assert (record.exit_code, record.passed) == (1, False)
    assert record.counts == TestCounts(passed=1, failed=1, skipped=0, errors=0)
    assert "assert -1 == 5" in record.output_tail
    _assert_evidence(record, project)


async def test_unittest_project(tmp_path: Path) -> None:
    project = _copy("python_unittest", tmp_path)
    record = await _run_discovered(project, tmp_path, "python:unittest")
    assert record.passed is False
    assert record.counts == TestCounts(passed=1, failed=1, skipped=1, errors=0)
    _assert_evidence(record, project)


async def test_npm_test_with_node_test(tmp_path: Path) -> None:
    require_component("node")
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed; install: apt-get install -y nodejs npm")
    project = _copy("node_test", tmp_path)
    record = await _run_discovered(project, tmp_path, "node:test")
    assert (record.exit_code, record.passed) == (0, True), record.output_tail
    assert record.counts == TestCounts(passed=2, failed=0, skipped=1, errors=0)
    _assert_evidence(record, project)


async def test_notebooks_check_runs_each_notebook_in_a_fresh_kernel(tmp_path: Path) -> None:
    project = _copy("notebooks", tmp_path)
    record = await _run_discovered(project, tmp_path, "notebooks:run")
    assert (record.exit_code, record.passed) == (1, False)
    assert record.counts == TestCounts(passed=1, failed=1, skipped=0, errors=0)
    assert "FAIL notebooks/bad.ipynb" in record.output_tail
    assert "ValueError: the totals no longer add up" in record.output_tail
    assert "PASS notebooks/good.ipynb" in record.output_tail  # read data.csv from its folder
    _assert_evidence(record, project)


async def test_shell_string_exit_code_and_tail(tmp_path: Path) -> None:
    check = CheckSpec(
        id="noisy",
        kind="build",
        command="for i in $(seq 1 2000); do echo line-$i; done; echo done >&2; exit 3",
    )
    options = RunCheckOptions(project_root=tmp_path, artifacts_dir=tmp_path / "art")
    record = await run_check(check, options)
    assert (record.exit_code, record.passed) == (3, False)
    assert record.counts == TestCounts()
    assert len(record.output_tail.encode()) <= TAIL_BYTES + 10
    assert record.output_tail.startswith("[...]\nline-")
    assert record.output_tail.endswith("line-2000\ndone\n")
    full = await asyncio.to_thread(Path(record.artifact or "").read_text)
    assert full.startswith("line-1\n")
    assert full.count("\n") == 2001


async def test_timeout_is_a_failed_record(tmp_path: Path) -> None:
    check = CheckSpec(id="slow", kind="test", command=["sleep", "30"])
    options = RunCheckOptions(project_root=tmp_path, artifacts_dir=tmp_path / "a", timeout_s=0.5)
    record = await run_check(check, options)
    assert record.exit_code is None
    assert record.passed is False
    assert "still running after 0.5 s" in record.output_tail


def test_cwd_outside_the_project_is_refused(tmp_path: Path) -> None:
    check = CheckSpec(id="x", kind="test", command=["true"], cwd="../elsewhere")
    with pytest.raises(VerificationError, match="outside the project"):
        resolve_invocation(check, RunCheckOptions(tmp_path, tmp_path / "a"))


def test_python_means_the_project_venv_else_this_interpreter(tmp_path: Path) -> None:
    check = CheckSpec(id="t", kind="test", command=["python", "-m", "pytest"], cwd=".")
    options = RunCheckOptions(tmp_path, tmp_path / "a")
    assert resolve_invocation(check, options).argv[0] == sys.executable
    venv_python = tmp_path / ".venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.write_text("")
    assert resolve_invocation(check, options).argv == (str(venv_python), "-m", "pytest")
    pinned = RunCheckOptions(tmp_path, tmp_path / "a", python="/opt/py")
    assert resolve_invocation(check, pinned).argv[0] == "/opt/py"
    ours = CheckSpec(
        id="notebooks:run",
        kind="test",
        command=["python", "-m", "zengine_jupyter.verify.notebooks", "a.ipynb"],
    )
    assert resolve_invocation(ours, pinned).argv[0] == sys.executable


class _RefusingRunner:
    def __init__(self) -> None:
        self.seen: list[CheckInvocation] = []

    async def run_check(self, invocation: CheckInvocation) -> CheckOutput:
        self.seen.append(invocation)
        raise VerificationError("denied by the permission gate")


async def test_a_refused_run_leaves_no_record_and_no_artifact(tmp_path: Path) -> None:
    runner = _RefusingRunner()
    check = CheckSpec(id="make:test", kind="test", command=["make", "test"], cwd="sub")
    (tmp_path / "sub").mkdir()
    options = RunCheckOptions(tmp_path, tmp_path / "art", runner=runner)
    with pytest.raises(VerificationError, match="denied"):
        await run_check(check, options)
    assert runner.seen[0].argv == ("make", "test")
    assert runner.seen[0].cwd == (tmp_path / "sub").resolve()
    assert not (tmp_path / "art").exists()


def _counts(passed: int, skipped: int) -> TestCounts:
    return TestCounts(passed=passed, failed=0, skipped=skipped, errors=0)


NATIVE = [
    # (fixture, check id, programs it needs, expected counts or None when the tool prints none)
    ("cargo_workspace", "cargo:test", ("cargo",), _counts(1, 1)),
    ("cmake", "cmake:ctest", ("cmake", "ctest", "cc"), _counts(2, 0)),
    ("makefile", "make:test", ("make", "cc"), None),
]


@pytest.mark.parametrize(
    ("name", "check_id", "needs", "counts"), NATIVE, ids=[n[1] for n in NATIVE]
)
async def test_native_toolchains_run_when_installed(
    name: str, check_id: str, needs: tuple[str, ...], counts: TestCounts | None, tmp_path: Path
) -> None:
    missing = [program for program in needs if shutil.which(program) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed: the fixture is checked by discovery only")
    project = _copy(name, tmp_path)
    record = await _run_discovered(project, tmp_path, check_id)
    assert (record.exit_code, record.passed) == (0, True), record.output_tail
    assert record.counts == (counts or TestCounts())
    _assert_evidence(record, project)
