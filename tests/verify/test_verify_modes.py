"""The stop-boundary decision for each mode, trust, and the continuation cap."""

from __future__ import annotations

import pytest

from zengine_jupyter.protocol import CheckRecord, CheckSpec, VerificationMode
from zengine_jupyter.testing.verify import make_record
from zengine_jupyter.verify import StopAction, StopState, assess, decide_stop

NOW = "f-now"
UNIT = CheckSpec(id="python:pytest", kind="test", command=["python", "-m", "pytest"])
AUTO, STRICT = VerificationMode.AUTO, VerificationMode.STRICT


def _state(
    mode: VerificationMode,
    records: list[CheckRecord],
    *,
    used: int = 0,
    trusted: bool = True,
    changed: bool = True,
) -> StopState:
    outcome = assess(records, fingerprint=NOW, changed_files=changed, mode=mode)
    return StopState(
        mode=mode,
        outcome=outcome,
        fingerprint=NOW,
        auto_checks=(UNIT,),
        continuations_used=used,
        max_continuations=3,
        trusted=trusted,
        records=tuple(records),
    )


@pytest.mark.parametrize("mode", [VerificationMode.OFF, VerificationMode.REPORT])
def test_off_and_report_do_nothing(mode: VerificationMode) -> None:
    failing = [make_record(UNIT.id, passed=False, fingerprint=NOW)]
    assert decide_stop(_state(mode, failing)).action is StopAction.NOTHING


@pytest.mark.parametrize("mode", [AUTO, STRICT])
def test_untrusted_projects_run_nothing(mode: VerificationMode) -> None:
    decision = decide_stop(_state(mode, [], trusted=False))
    assert decision.action is StopAction.NOTHING
    assert "untrusted" in decision.reason


@pytest.mark.parametrize("mode", [AUTO, STRICT])
def test_no_changed_files_or_verified_ends_quietly(mode: VerificationMode) -> None:
    assert decide_stop(_state(mode, [], changed=False)).action is StopAction.NOTHING
    passing = [make_record(UNIT.id, passed=True, fingerprint=NOW)]
    assert decide_stop(_state(mode, passing)).action is StopAction.NOTHING


@pytest.mark.parametrize("mode", [AUTO, STRICT])
def test_missing_evidence_runs_the_auto_checks(mode: VerificationMode) -> None:
    decision = decide_stop(_state(mode, []))
    assert decision.action is StopAction.RUN_CHECKS
    assert decision.checks == (UNIT,)
    stale = [make_record(UNIT.id, passed=True, fingerprint="f-old")]
    assert decide_stop(_state(mode, stale)).checks == (UNIT,)


@pytest.mark.parametrize("mode", [AUTO, STRICT])
def test_a_stale_failure_of_an_auto_check_is_run_again_not_sent_back(
    mode: VerificationMode,
) -> None:
    stale_fail = [make_record(UNIT.id, passed=False, fingerprint="f-old")]
    decision = decide_stop(_state(mode, stale_fail, used=1))
    assert decision.action is StopAction.RUN_CHECKS


@pytest.mark.parametrize("mode", [AUTO, STRICT])
def test_fresh_failures_are_sent_back_until_the_cap(mode: VerificationMode) -> None:
    failing = [make_record(UNIT.id, passed=False, fingerprint=NOW)]
    for used in range(3):
        decision = decide_stop(_state(mode, failing, used=used))
        assert decision.action is StopAction.SEND_BACK
        assert [r.check_id for r in decision.failures] == [UNIT.id]
    capped = decide_stop(_state(mode, failing, used=3))
    assert capped.action is StopAction.STOP
    assert capped.reason.startswith("3 continuations used")


def test_auto_accepts_unverified_after_its_checks_ran() -> None:
    lint_only = [make_record(UNIT.id, passed=True, fingerprint=NOW, kind="lint")]
    assert decide_stop(_state(AUTO, lint_only)).action is StopAction.NOTHING


def test_strict_keeps_asking_for_evidence_until_the_cap() -> None:
    lint_only = [make_record(UNIT.id, passed=True, fingerprint=NOW, kind="lint")]
    decision = decide_stop(_state(STRICT, lint_only, used=2))
    assert decision.action is StopAction.SEND_BACK
    assert "run a test, build or typecheck check" in decision.reason
    assert decide_stop(_state(STRICT, lint_only, used=3)).action is StopAction.STOP
