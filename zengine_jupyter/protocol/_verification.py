"""Recorded verification: what a check is, what one run of it left, and the badge.

A check is a command the project already uses (tests, build, typecheck, lint, format);
a :class:`CheckRecord` is the evidence of one run of it; the :class:`Badge` of a turn is
read from the latest record of each check, never from the model's words.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import ConfigDict

from zengine_jupyter.protocol._data_model import DataModel

__all__ = [
    "EVIDENCE_KINDS",
    "Badge",
    "CheckKind",
    "CheckRecord",
    "CheckSource",
    "CheckSpec",
    "TestCounts",
    "VerificationMode",
    "VerificationOutcome",
]

CheckKind = Literal["test", "build", "typecheck", "lint", "format"]
CheckSource = Literal["discovered", "settings"]

EVIDENCE_KINDS: frozenset[str] = frozenset({"test", "build", "typecheck"})
"""Kinds whose fresh pass can make a turn Verified; lint and format alone never do."""


class VerificationMode(StrEnum):
    """``verification.mode``: what happens at the stop boundary of a turn that changed files."""

    OFF = "off"
    REPORT = "report"
    AUTO = "auto"
    STRICT = "strict"


class Badge(StrEnum):
    """The turn's verification badge (spec: the badge table)."""

    VERIFIED = "verified"
    FAILED = "failed"
    UNVERIFIED = "unverified"
    NOT_APPLICABLE = "not_applicable"


class CheckSpec(DataModel):
    """A check the agent can run with Verify: discovered from build files or set in settings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """Unique in a project, e.g. ``python:pytest`` or ``node:test@packages/web``."""
    kind: CheckKind
    command: list[str] | str
    """An argv list, or a shell string run with ``sh -c``."""
    cwd: str = "."
    """Relative to the project root, ``/`` separated."""
    source: CheckSource = "discovered"
    ecosystem: str = "custom"
    parser: str | None = None
    """Which test-count parser reads its output (``pytest``, ``cargo``, ...); None: try each."""

    def display_command(self) -> str:
        """The command as a person would type it."""
        if isinstance(self.command, str):
            return self.command
        return " ".join(_quote(part) for part in self.command)


class TestCounts(DataModel):
    """Test counts parsed from a check's output; a field is None when the output does not say."""

    __test__ = False  # not a pytest test class
    model_config = ConfigDict(frozen=True, extra="forbid")

    passed: int | None = None
    failed: int | None = None
    skipped: int | None = None
    errors: int | None = None

    @property
    def known(self) -> bool:
        return any(v is not None for v in (self.passed, self.failed, self.skipped, self.errors))


class CheckRecord(DataModel):
    """One recorded run of a check: the evidence the badge is read from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    check_id: str
    kind: CheckKind
    command: list[str] | str
    cwd: str = "."
    exit_code: int | None
    """None when the run was stopped (timeout) or could not start."""
    passed: bool
    counts: TestCounts = TestCounts()
    duration_s: float
    output_tail: str
    """The last few KB of the output, inline."""
    artifact: str | None = None
    """Where the whole output was written."""
    fingerprint_before: str
    fingerprint_after: str
    """The project's fingerprint when the run ended; the record is fresh while it matches."""
    started: datetime
    finished: datetime


class VerificationOutcome(DataModel):
    """The badge, the records it was read from, and why, in words."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    badge: Badge
    records: list[CheckRecord] = []
    reason: str


def _quote(part: str) -> str:
    import shlex

    return shlex.quote(part)
