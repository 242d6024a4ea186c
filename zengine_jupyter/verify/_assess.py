"""The badge, read from the latest record of each check (spec: the badge table).

====================  ===================================================================
Verified              a passing test, build or typecheck check ran after the last change,
                      and its fingerprint matches the files now
Failed                the latest run of at least one check failed
Unverified            no such evidence: no check since the change, only stale checks, or
                      only lint and format checks
Not applicable        no files changed in the turn, or verification is off
====================  ===================================================================

Precedence: Not applicable, then Failed, then Verified, then Unverified.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.protocol import (
    EVIDENCE_KINDS,
    Badge,
    CheckRecord,
    VerificationMode,
    VerificationOutcome,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["assess", "is_fresh", "latest_records", "unsaved_notebooks"]


def latest_records(records: Iterable[CheckRecord]) -> dict[str, CheckRecord]:
    """The latest record of each check id (by ``finished``; ties: the later in the input)."""
    latest: dict[str, CheckRecord] = {}
    for record in records:
        known = latest.get(record.check_id)
        if known is None or record.finished >= known.finished:
            latest[record.check_id] = record
    return latest


def is_fresh(record: CheckRecord, fingerprint: str) -> bool:
    """Whether the files are still as they were when the run ended."""
    return record.fingerprint_after == fingerprint


def _names(records: Iterable[CheckRecord]) -> str:
    return ", ".join(r.check_id for r in records)


def assess(
    records: Iterable[CheckRecord],
    *,
    fingerprint: str,
    changed_files: bool,
    mode: VerificationMode = VerificationMode.REPORT,
) -> VerificationOutcome:
    """The turn's badge from the check records so far and the current fingerprint."""
    if mode is VerificationMode.OFF:
        return VerificationOutcome(badge=Badge.NOT_APPLICABLE, reason="verification is off")
    if not changed_files:
        return VerificationOutcome(
            badge=Badge.NOT_APPLICABLE, reason="no files changed in this turn"
        )
    latest = list(latest_records(records).values())
    failed = [r for r in latest if not r.passed]
    if failed:
        return VerificationOutcome(
            badge=Badge.FAILED,
            records=failed,
            reason=f"the latest run of {_names(failed)} failed",
        )
    fresh = [r for r in latest if is_fresh(r, fingerprint)]
    evidence = [r for r in fresh if r.kind in EVIDENCE_KINDS]
    if evidence:
        return VerificationOutcome(
            badge=Badge.VERIFIED,
            records=evidence,
            reason=f"{_names(evidence)} passed after the last change",
        )
    if not latest:
        reason = "no check ran since the change"
    elif not fresh:
        reason = f"only stale checks: files changed after {_names(latest)} ran"
    else:
        reason = f"only lint and format checks ran since the change ({_names(fresh)})"
    return VerificationOutcome(badge=Badge.UNVERIFIED, records=latest, reason=reason)


def unsaved_notebooks(outcome: VerificationOutcome, unsaved: list[str]) -> VerificationOutcome:
    """Checks read files: a notebook the agent changed that is open with unsaved changes was
    not what they verified. A Verified badge becomes Unverified, naming it; others say so."""
    if not unsaved or outcome.badge in (Badge.NOT_APPLICABLE, Badge.FAILED):
        return outcome
    names = ", ".join(unsaved)
    why = (f"{names} {'is' if len(unsaved) == 1 else 'are'} open in JupyterLab with unsaved "
           "changes, and checks read the saved file: save, then /verify")  # fmt: skip
    if outcome.badge is Badge.VERIFIED:
        return VerificationOutcome(badge=Badge.UNVERIFIED, records=outcome.records, reason=why)
    return outcome.model_copy(update={"reason": f"{outcome.reason}; {why}"})
