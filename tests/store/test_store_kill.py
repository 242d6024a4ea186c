"""Acceptance 1: a real child appending as fast as it can, SIGKILLed at random moments."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.testing.store_kill import run_kill_rounds

if TYPE_CHECKING:
    from pathlib import Path

KILLS = 60


def test_sigkill_mid_append_loses_at_most_the_partial_line(tmp_path: Path) -> None:
    rounds = run_kill_rounds(tmp_path, KILLS, seed=20261130)
    assert len(rounds) == KILLS
    for n, r in enumerate(rounds):
        assert r.killed_by_sigkill, n
        # every record whose append returned before the kill is kept, in order
        assert r.in_order, n
        assert r.kept - 1 >= r.acked, n
        # beyond those, at most the one append in flight survived
        assert r.kept - 1 <= r.acked + 1, n
        # nothing else was damaged; what was cut is at most one partial line, kept aside
        assert r.skipped_lines == 0, n
        assert r.cut_is_partial_line, n
        # and the chat takes appends again
        assert r.append_after_works, n
    # the kills landed while the worker was appending (not before its first append)
    assert sum(r.appended > 0 for r in rounds) > KILLS // 2
    acknowledged = sum(r.appended for r in rounds)
    lost = sum(r.lost for r in rounds)
    print(f"\nstore kill: {len(rounds)} kills, {acknowledged} records acknowledged, lost: {lost}")
    assert lost == 0
