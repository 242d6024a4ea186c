"""Work-done progress: a server is busy while a ``$/progress`` token it began is open."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["LONG_WORK_S", "ProgressTracker"]


LONG_WORK_S = 1.0
"""A token open this long is long work (indexing, a first analysis). Shorter ones are a
request's own work: pylsp opens one around each file's lint ("lint: pyflakes") and ends it
just after publishing, so a write right after a lint must not find the server "indexing"."""


class ProgressTracker:
    """Feed it ``$/progress`` params; ``busy`` while a begun token has been open for
    :data:`LONG_WORK_S` and has not ended."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._open: dict[str | int, tuple[str, float]] = {}
        """Each begun token's title and when it began."""
        self._clock = clock
        self.last_title: str | None = None

    @property
    def busy(self) -> bool:
        if not self._open:
            return False
        return self._clock() - min(began for _, began in self._open.values()) >= LONG_WORK_S

    @property
    def titles(self) -> list[str]:
        return [title for title, _ in self._open.values()]

    def update(self, params: Any) -> None:
        if not isinstance(params, dict):
            return
        token = params.get("token")
        value = params.get("value")
        if not isinstance(token, str | int) or not isinstance(value, dict):
            return
        kind = value.get("kind")
        if kind == "begin":
            title = str(value.get("title") or "working")
            self._open[token] = (title, self._clock())
            self.last_title = title
        elif kind == "end":
            self._open.pop(token, None)
        elif kind == "report" and token in self._open and value.get("message"):
            self.last_title = f"{self._open[token][0]}: {value['message']}"

    def clear(self) -> None:
        self._open.clear()
