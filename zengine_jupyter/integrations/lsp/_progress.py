"""Work-done progress: a server is busy while a ``$/progress`` token it began is open."""

from __future__ import annotations

from typing import Any

__all__ = ["ProgressTracker"]


class ProgressTracker:
    """Feed it ``$/progress`` params; ``busy`` while any begun token has not ended."""

    def __init__(self) -> None:
        self._open: dict[str | int, str] = {}
        self.last_title: str | None = None

    @property
    def busy(self) -> bool:
        return bool(self._open)

    @property
    def titles(self) -> list[str]:
        return list(self._open.values())

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
            self._open[token] = title
            self.last_title = title
        elif kind == "end":
            self._open.pop(token, None)
        elif kind == "report" and token in self._open and value.get("message"):
            self.last_title = f"{self._open[token]}: {value['message']}"

    def clear(self) -> None:
        self._open.clear()
