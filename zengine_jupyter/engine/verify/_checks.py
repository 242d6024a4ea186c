"""The chat's checks (discovered, plus ``[[verification.checks]]``), its check records, and
running checks so that each run is journaled and announced.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zengine_jupyter.protocol import (
    CheckLogRecord,
    CheckRecorded,
    CheckSpec,
    VerificationChanged,
    VerificationRecord,
)
from zengine_jupyter.verify import RunCheckOptions, discover_checks, merge_checks, run_check

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from pathlib import Path

    from zengine_jupyter.config import EffectiveSettings
    from zengine_jupyter.engine._journal import Journal
    from zengine_jupyter.protocol import CheckRecord, VerificationOutcome

__all__ = ["ChatChecks", "Reporter", "configured_checks", "summary"]

_PROJECT_LAYERS = ("project", "local")


def configured_checks(settings: EffectiveSettings) -> list[CheckSpec]:
    """``[[verification.checks]]`` as check specs; a project's own entries only when trusted.

    The settings already withhold them from an untrusted project; this looks at each
    entry's layer again, so a project check can never slip through.
    """
    specs: list[CheckSpec] = []
    for index, entry in enumerate(settings.settings.verification.checks):
        layer = settings.source_of(f"verification.checks[{index}]")
        if not settings.trusted and layer in _PROJECT_LAYERS:
            continue
        specs.append(
            CheckSpec(id=entry.id, kind=entry.kind, command=entry.command,
                      cwd=entry.cwd or ".", source="settings")
        )  # fmt: skip
    return specs


def summary(record: CheckRecord) -> str:
    """One line: PASS/FAIL, the id, exit code, counts, duration."""
    verdict = "PASS" if record.passed else "FAIL"
    code = "stopped at its deadline" if record.exit_code is None else f"exit {record.exit_code}"
    c = record.counts
    pairs = (("passed", c.passed), ("failed", c.failed), ("skipped", c.skipped),
             ("errors", c.errors))  # fmt: skip
    counts = [f"{v} {n}" for n, v in pairs if v]
    text = f"{verdict} {record.check_id} ({code}, {record.duration_s:.1f} s)"
    return text + (": " + ", ".join(counts) if counts else "")


@dataclass
class ChatChecks:
    """What verification knows in one chat."""

    root: Path
    checks: list[CheckSpec] = field(default_factory=list)
    records: list[CheckRecord] = field(default_factory=list)

    async def load(self, settings: EffectiveSettings) -> None:
        """Discover (reads files only) and merge the configured checks."""
        discovered = await discover_checks(self.root)
        self.checks = merge_checks(discovered, configured_checks(settings))

    def replay(self, records: Iterable[object]) -> None:
        """Take the check records of a resumed chat's log."""
        self.records = [r.check for r in records if isinstance(r, CheckLogRecord)]

    def by_id(self, ids: Sequence[str]) -> list[CheckSpec]:
        known = {c.id: c for c in self.checks}
        return [known[i] for i in ids if i in known]

    def unknown(self, ids: Sequence[str]) -> list[str]:
        known = {c.id for c in self.checks}
        return [i for i in ids if i not in known]

    async def run(
        self, checks: Sequence[CheckSpec], options: RunCheckOptions, report: Reporter
    ) -> list[CheckRecord]:
        """Run each check; journal its record, then publish checkRecorded."""
        done: list[CheckRecord] = []
        for check in checks:
            record = await run_check(check, options)
            self.records.append(record)
            done.append(record)
            report.journal.record(
                CheckLogRecord(check=record),
                CheckRecorded(session_id=report.session_id, turn_id=report.turn_id,
                              check_id=record.check_id, passed=record.passed,
                              summary=summary(record)),
            )  # fmt: skip
        return done


@dataclass(frozen=True)
class Reporter:
    """Where a run's records and events go."""

    journal: Journal
    session_id: str
    turn_id: str | None

    def badge(self, outcome: VerificationOutcome) -> None:
        """Journal the badge (a view rebuilt from the log shows it), then publish it."""
        self.journal.record(
            VerificationRecord(badge=outcome.badge.value, reason=outcome.reason,
                               turn_id=self.turn_id),
            VerificationChanged(session_id=self.session_id, turn_id=self.turn_id,
                                badge=outcome.badge.value, reason=outcome.reason),
        )  # fmt: skip
