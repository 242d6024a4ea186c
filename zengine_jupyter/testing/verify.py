"""Fakes for verification: check records made to order and a scripted check runner."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from zengine_jupyter.protocol import CheckKind, CheckRecord, TestCounts
from zengine_jupyter.verify import CheckInvocation, CheckOutput

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["ScriptedCheckRunner", "make_record"]

_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def make_record(
    check_id: str,
    *,
    passed: bool,
    fingerprint: str,
    kind: CheckKind = "test",
    order: int = 0,
) -> CheckRecord:
    """A record of ``check_id`` whose run ended with the files at ``fingerprint``.

    ``order`` places it in time (larger is later), so "latest" is unambiguous.
    """
    finished = _EPOCH + timedelta(seconds=order)
    return CheckRecord(
        check_id=check_id,
        kind=kind,
        command=["run", check_id],
        exit_code=0 if passed else 1,
        passed=passed,
        counts=TestCounts(passed=1 if passed else 0, failed=0 if passed else 1),
        duration_s=0.1,
        output_tail="ok\n" if passed else "FAILED\n",
        fingerprint_before=fingerprint,
        fingerprint_after=fingerprint,
        started=finished - timedelta(milliseconds=100),
        finished=finished,
    )


@dataclass
class ScriptedCheckRunner:
    """A :class:`~zengine_jupyter.verify.CheckRunner` that answers from a script, in order.

    Each answer is ``(exit_code, output)``; every invocation is kept in ``seen``.
    """

    answers: deque[tuple[int | None, str]] = field(default_factory=deque)
    seen: list[CheckInvocation] = field(default_factory=list)

    @classmethod
    def of(cls, answers: Iterable[tuple[int | None, str]]) -> ScriptedCheckRunner:
        return cls(deque(answers))

    async def run_check(self, invocation: CheckInvocation) -> CheckOutput:
        self.seen.append(invocation)
        code, output = self.answers.popleft()
        return CheckOutput(code, output.encode(), timed_out=code is None)
