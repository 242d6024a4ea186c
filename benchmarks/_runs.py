"""Runs that measure several figures at once, shared by the rows that report them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from benchmarks._harness import Sample

__all__ = ["Runs"]


class Runs:
    """Each row's ``sample(figure)`` takes the next run it has not used yet, starting a new run
    only when it has used them all: rows measured one after the other over the same runs
    (same ``repeat``) cost the runs of one row, and each row's warm-up is the same run."""

    def __init__(self, run: Callable[[], Mapping[str, float]]) -> None:
        self._run = run
        self._done: list[Mapping[str, float]] = []
        self._used: dict[str, int] = {}

    def sample(self, figure: str, row: str = "") -> Sample:
        """``figure`` of each run in turn; ``row`` tells apart rows that read the same figure."""
        key = f"{figure}/{row}"

        def take() -> float:
            used = self._used.get(key, 0)
            if used == len(self._done):
                self._done.append(self._run())
            self._used[key] = used + 1
            return self._done[used][figure]

        return take
