"""The stop-boundary decision driven the way the engine will drive it, with real check runs.

The "model" here is a callback that edits the project when failures are sent back; the real
engine will send them to the model through the provider. Each check runs for real (pytest).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from zengine_jupyter.host import fingerprint_tree
from zengine_jupyter.protocol import Badge, CheckRecord, CheckSpec, VerificationMode
from zengine_jupyter.verify import (
    RunCheckOptions,
    StopAction,
    StopState,
    assess,
    decide_stop,
    discover_checks,
    merge_checks,
    run_check,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "verify"


async def _turn_end(
    project: Path,
    mode: VerificationMode,
    auto_checks: tuple[CheckSpec, ...],
    model: Callable[[tuple[CheckRecord, ...]], None],
    *,
    trusted: bool = True,
) -> tuple[Badge, list[StopAction], int]:
    """Loop decide_stop until it says nothing or stop; returns the badge, actions, send-backs."""
    records: list[CheckRecord] = []
    actions: list[StopAction] = []
    used = 0
    options = RunCheckOptions(project, project.parent / "artifacts")
    for _ in range(20):
        now = fingerprint_tree(project).digest
        outcome = assess(records, fingerprint=now, changed_files=True, mode=mode)
        decision = decide_stop(
            StopState(
                mode=mode,
                outcome=outcome,
                fingerprint=now,
                auto_checks=auto_checks,
                continuations_used=used,
                max_continuations=3,
                trusted=trusted,
                records=tuple(records),
            )
        )
        actions.append(decision.action)
        if decision.action is StopAction.RUN_CHECKS:
            records += [await run_check(check, options) for check in decision.checks]
        elif decision.action is StopAction.SEND_BACK:
            used += 1
            model(decision.failures)
        else:
            return outcome.badge, actions, used
    raise AssertionError("the stop boundary never settled")


def _copy(name: str, tmp_path: Path) -> Path:
    project = tmp_path / name
    shutil.copytree(FIXTURES / name, project)
    return project


async def test_auto_runs_the_check_sends_the_failure_back_and_ends_verified(
    tmp_path: Path,
) -> None:
    project = _copy("python_fail", tmp_path)
    pytest_check = next(c for c in await discover_checks(project) if c.id == "python:pytest")
    seen: list[str] = []

    def model(failures: tuple[CheckRecord, ...]) -> None:
        seen.extend(r.output_tail for r in failures)
        calc = project / "calc.py"
        calc.write_text(calc.read_text().replace("return a - b", "return a + b"))

    badge, actions, used = await _turn_end(project, VerificationMode.AUTO, (pytest_check,), model)
    assert badge is Badge.VERIFIED
    assert actions == [
        StopAction.RUN_CHECKS,  # no evidence yet
        StopAction.SEND_BACK,  # pytest failed: its output goes back
        StopAction.RUN_CHECKS,  # the failure is stale after the fix: run again
        StopAction.NOTHING,  # verified
    ]
    assert used == 1
    assert "assert -1 == 5" in seen[0]


async def test_strict_stops_after_max_continuations_with_the_badge_failed(
    tmp_path: Path,
) -> None:
    project = _copy("python_fail", tmp_path)
    pytest_check = next(c for c in await discover_checks(project) if c.id == "python:pytest")
    badge, actions, used = await _turn_end(
        project, VerificationMode.STRICT, (pytest_check,), lambda failures: None
    )
    assert badge is Badge.FAILED
    assert used == 3
    assert actions[-1] is StopAction.STOP
    assert actions.count(StopAction.RUN_CHECKS) == 1  # nothing changed: no re-run


async def test_an_untrusted_projects_own_check_never_runs(tmp_path: Path) -> None:
    project = _copy("python_pass", tmp_path)
    marker = tmp_path / "marker"
    project_defined = CheckSpec(
        id="python:pytest", kind="test", command=f"touch {marker}", source="settings"
    )
    checks = merge_checks(await discover_checks(project), [project_defined], trusted=False)
    assert all(c.source == "discovered" for c in checks)
    for mode in (VerificationMode.AUTO, VerificationMode.STRICT):
        badge, actions, _ = await _turn_end(
            project, mode, (project_defined,), lambda f: None, trusted=False
        )
        assert (badge, actions) == (Badge.UNVERIFIED, [StopAction.NOTHING])
    assert not marker.exists()
    trusted = merge_checks(await discover_checks(project), [project_defined], trusted=True)
    assert trusted[0].command == f"touch {marker}"  # trusted: the entry replaces the default
