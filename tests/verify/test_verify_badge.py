"""The badge, row by row of the spec's table, plus its edge cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.host import fingerprint_tree
from zengine_jupyter.protocol import Badge, CheckSpec, VerificationMode
from zengine_jupyter.testing.verify import ScriptedCheckRunner, make_record
from zengine_jupyter.verify import RunCheckOptions, assess, run_check

NOW = "f-now"
OLD = "f-old"


# -- Verified: a passing test, build or typecheck check ran after the last change,
#    and its fingerprint matches the files now
@pytest.mark.parametrize("kind", ["test", "build", "typecheck"])
def test_verified_by_a_fresh_passing_evidence_check(kind: str) -> None:
    record = make_record("c", passed=True, fingerprint=NOW, kind=kind)  # type: ignore[arg-type]
    outcome = assess([record], fingerprint=NOW, changed_files=True)
    assert outcome.badge is Badge.VERIFIED
    assert outcome.records == [record]
    assert "passed after the last change" in outcome.reason


# -- Failed: the latest run of at least one check failed
def test_failed_when_the_latest_run_of_a_check_failed() -> None:
    records = [
        make_record("unit", passed=True, fingerprint=NOW, order=1),
        make_record("lint", passed=False, fingerprint=NOW, kind="lint", order=2),
    ]
    outcome = assess(records, fingerprint=NOW, changed_files=True)
    assert outcome.badge is Badge.FAILED
    assert [r.check_id for r in outcome.records] == ["lint"]


def test_a_later_pass_of_the_same_check_clears_its_failure() -> None:
    records = [
        make_record("unit", passed=False, fingerprint=OLD, order=1),
        make_record("unit", passed=True, fingerprint=NOW, order=2),
    ]
    assert assess(records, fingerprint=NOW, changed_files=True).badge is Badge.VERIFIED


# -- Unverified: no such evidence
def test_unverified_when_no_check_ran_since_the_change() -> None:
    outcome = assess([], fingerprint=NOW, changed_files=True)
    assert outcome.badge is Badge.UNVERIFIED
    assert outcome.reason == "no check ran since the change"


def test_unverified_when_only_stale_checks() -> None:
    outcome = assess(
        [make_record("unit", passed=True, fingerprint=OLD)], fingerprint=NOW, changed_files=True
    )
    assert outcome.badge is Badge.UNVERIFIED
    assert outcome.reason.startswith("only stale checks")


def test_unverified_with_lint_only_evidence() -> None:
    records = [
        make_record("ruff", passed=True, fingerprint=NOW, kind="lint", order=1),
        make_record("fmt", passed=True, fingerprint=NOW, kind="format", order=2),
    ]
    outcome = assess(records, fingerprint=NOW, changed_files=True)
    assert outcome.badge is Badge.UNVERIFIED
    assert outcome.reason.startswith("only lint and format checks")


# -- Not applicable: no files changed in the turn, or verification is off
def test_not_applicable_when_no_files_changed() -> None:
    failed = make_record("unit", passed=False, fingerprint=NOW)
    outcome = assess([failed], fingerprint=NOW, changed_files=False)
    assert outcome.badge is Badge.NOT_APPLICABLE
    assert outcome.reason == "no files changed in this turn"


def test_not_applicable_when_verification_is_off() -> None:
    passing = make_record("unit", passed=True, fingerprint=NOW)
    outcome = assess([passing], fingerprint=NOW, changed_files=True, mode=VerificationMode.OFF)
    assert outcome.badge is Badge.NOT_APPLICABLE
    assert outcome.reason == "verification is off"


# -- edge cases
def test_a_stale_pass_followed_by_a_fail_is_failed() -> None:
    records = [
        make_record("unit", passed=True, fingerprint=OLD, order=1),
        make_record("unit", passed=False, fingerprint=NOW, order=2),
    ]
    assert assess(records, fingerprint=NOW, changed_files=True).badge is Badge.FAILED


def test_latest_is_by_time_not_by_list_order() -> None:
    records = [
        make_record("unit", passed=False, fingerprint=NOW, order=2),
        make_record("unit", passed=True, fingerprint=NOW, order=1),
    ]
    assert assess(records, fingerprint=NOW, changed_files=True).badge is Badge.FAILED


@pytest.mark.parametrize("mode", list(VerificationMode))
def test_modes_other_than_off_read_the_same_badge(mode: VerificationMode) -> None:
    passing = make_record("unit", passed=True, fingerprint=NOW)
    expected = Badge.NOT_APPLICABLE if mode is VerificationMode.OFF else Badge.VERIFIED
    assert assess([passing], fingerprint=NOW, changed_files=True, mode=mode).badge is expected


async def test_a_file_changed_after_a_passing_check_makes_it_unverified(tmp_path: Path) -> None:
    """Real files and real fingerprints: pass, then edit a file, and the pass goes stale."""
    (tmp_path / "app.py").write_text("print(1)\n")
    check = CheckSpec(id="python:pytest", kind="test", command=["pytest"])
    runner = ScriptedCheckRunner.of([(0, "==== 3 passed in 0.1s ====\n")])
    options = RunCheckOptions(tmp_path, tmp_path.parent / "artifacts", runner=runner)
    record = await run_check(check, options)
    now = fingerprint_tree(tmp_path).digest
    assert assess([record], fingerprint=now, changed_files=True).badge is Badge.VERIFIED
    (tmp_path / "app.py").write_text("print(2)  # edited after the check\n")
    later = fingerprint_tree(tmp_path).digest
    outcome = assess([record], fingerprint=later, changed_files=True)
    assert outcome.badge is Badge.UNVERIFIED
    assert outcome.reason.startswith("only stale checks")
