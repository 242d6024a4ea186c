"""Interleaved pairs: a sample that stays fair on a loaded machine.

One sample runs ours and the baseline ``pairs`` times each, alternating which goes first, and
keeps each side's fastest run (as ``timeit`` advises: load only ever adds time, and a run
preempted by another program says nothing about the code). The harness then takes the median
of its samples. Both sides see the same load at the same moments.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Pairs"]


class Pairs:
    """``ours()`` runs a sample and returns our fastest; ``theirs()`` the baseline's fastest
    from the same sample. ``between`` runs after each pair, outside the timing. With
    ``measured``, each run returns its own figure (CPU seconds, say), kept instead of its wall
    time."""

    def __init__(
        self,
        ours: Callable[[], object],
        base: Callable[[], object],
        pairs: int,
        between: Callable[[], object] | None = None,
        *,
        measured: bool = False,
    ) -> None:
        self._ours, self._base, self._pairs, self._between = ours, base, pairs, between
        self._measured = measured
        self._pending: float | None = None

    def ours(self) -> float:
        a: list[float] = []
        b: list[float] = []
        for i in range(self._pairs):
            order = ((self._ours, a), (self._base, b))
            for run, into in order if i % 2 == 0 else reversed(order):
                start = time.perf_counter()
                figure = run()
                wall = time.perf_counter() - start
                into.append(float(figure) if self._measured else wall)  # type: ignore[arg-type]
            if self._between is not None:
                self._between()
        self._pending = min(b)
        return min(a)

    def theirs(self) -> float:
        if self._pending is None:
            self.ours()
        taken, self._pending = self._pending, None
        assert taken is not None
        return taken
