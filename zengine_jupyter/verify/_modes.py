"""What the engine does at the stop boundary of a turn, per ``verification.mode``.

A pure decision: given the mode, the badge and the records behind it, the auto checks,
how many send-backs were used and whether the project is trusted, it says what to do
next. The engine carries it out (runs the checks, sends failures back, or ends the
turn) and asks again.

- off, report: nothing (report only computes the badge).
- untrusted project: auto and strict run nothing.
- auto: when evidence is missing (Unverified or Failed), run the auto checks that have
  no fresh record; a fresh failure is sent back to the model, at most
  ``max_continuations`` times, then the turn stops Failed.
- strict: as auto, and an Unverified turn is also sent back (asking for evidence) until
  Verified or ``max_continuations`` is reached.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from zengine_jupyter.protocol import Badge, CheckRecord, CheckSpec, VerificationMode
from zengine_jupyter.verify._assess import is_fresh, latest_records

if TYPE_CHECKING:
    from zengine_jupyter.protocol import VerificationOutcome

__all__ = ["DEFAULT_MAX_CONTINUATIONS", "StopAction", "StopDecision", "StopState", "decide_stop"]

DEFAULT_MAX_CONTINUATIONS = 3


class StopAction(StrEnum):
    NOTHING = "nothing"
    """End the turn as it is."""
    RUN_CHECKS = "run_checks"
    """Run ``checks`` (recording them), then decide again."""
    SEND_BACK = "send_back"
    """Give ``failures`` (or the request for evidence) back to the model; the turn goes on."""
    STOP = "stop"
    """End the turn: the send-backs are used up."""


@dataclass(frozen=True)
class StopState:
    """Everything the decision reads."""

    mode: VerificationMode
    outcome: VerificationOutcome
    fingerprint: str
    auto_checks: tuple[CheckSpec, ...] = ()
    continuations_used: int = 0
    max_continuations: int = DEFAULT_MAX_CONTINUATIONS
    trusted: bool = True
    records: tuple[CheckRecord, ...] = ()
    """Every record of the session so far (the outcome holds only those behind the badge)."""


@dataclass(frozen=True)
class StopDecision:
    action: StopAction
    reason: str
    checks: tuple[CheckSpec, ...] = ()
    failures: tuple[CheckRecord, ...] = ()


def decide_stop(state: StopState) -> StopDecision:
    """The next step at the stop boundary (see the module docstring)."""
    mode, badge = state.mode, state.outcome.badge
    if mode in (VerificationMode.OFF, VerificationMode.REPORT):
        return StopDecision(StopAction.NOTHING, f"mode {mode.value}: the badge is only reported")
    if not state.trusted:
        return StopDecision(
            StopAction.NOTHING, f"untrusted project: mode {mode.value} runs nothing"
        )
    if badge in (Badge.NOT_APPLICABLE, Badge.VERIFIED):
        return StopDecision(StopAction.NOTHING, state.outcome.reason)
    latest = latest_records((*state.records, *state.outcome.records))
    pending = tuple(
        c
        for c in state.auto_checks
        if c.id not in latest or not is_fresh(latest[c.id], state.fingerprint)
    )
    if pending:
        return StopDecision(
            StopAction.RUN_CHECKS,
            "evidence is missing: running " + ", ".join(c.id for c in pending),
            checks=pending,
        )
    left = state.continuations_used < state.max_continuations
    if badge is Badge.FAILED:
        failures = tuple(r for r in latest.values() if not r.passed)
        if left:
            return StopDecision(StopAction.SEND_BACK, state.outcome.reason, failures=failures)
        return StopDecision(
            StopAction.STOP,
            f"{state.max_continuations} continuations used; {state.outcome.reason}",
            failures=failures,
        )
    if mode is VerificationMode.AUTO:
        return StopDecision(StopAction.NOTHING, state.outcome.reason)
    if left:
        return StopDecision(
            StopAction.SEND_BACK,
            f"not verified yet ({state.outcome.reason}): run a test, build or typecheck "
            "check with Verify",
        )
    return StopDecision(
        StopAction.STOP,
        f"{state.max_continuations} continuations used; still unverified: {state.outcome.reason}",
    )
