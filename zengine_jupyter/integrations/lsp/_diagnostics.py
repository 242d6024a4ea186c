"""The diagnostics a server gave for each file: published by it, or pulled from it (LSP 3.17
``textDocument/diagnostic``); a generation counter per file tells a fresh answer from an old
one, and waiters are woken on each new answer."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["DiagnosticStore", "Published"]


@dataclass(frozen=True)
class Published:
    """The latest ``publishDiagnostics`` for one file; ``generation`` counts publishes."""

    version: int | None
    diagnostics: tuple[dict[str, Any], ...]
    generation: int


class DiagnosticStore:
    """The latest diagnostics per document URI, and waiting for newer ones."""

    def __init__(self) -> None:
        self._latest: dict[str, Published] = {}
        self._events: dict[str, asyncio.Event] = {}

    def get(self, uri: str) -> Published | None:
        return self._latest.get(uri)

    def record(self, uri: str, version: int | None, items: Any) -> Published:
        """A new answer for ``uri`` (``items``: the server's list; anything else is none)."""
        previous = self._latest.get(uri)
        latest = self._latest[uri] = Published(
            version,
            tuple(d for d in items if isinstance(d, dict)) if isinstance(items, list) else (),
            (previous.generation if previous else 0) + 1,
        )
        event = self._events.pop(uri, None)
        if event is not None:
            event.set()
        return latest

    async def wait(
        self, uri: str, *, version: int, after: int, timeout_s: float, alive: Callable[[], bool]
    ) -> Published | None:
        """Diagnostics of ``uri`` at ``version`` or later, recorded after generation ``after``
        (servers that send no version: any later one); ``None`` when none came within
        ``timeout_s`` or ``alive()`` turned false (see :meth:`wake`)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                while alive():
                    current = self._latest.get(uri)
                    if (
                        current is not None
                        and current.generation > after
                        and (current.version is None or current.version >= version)
                    ):
                        return current
                    await self._events.setdefault(uri, asyncio.Event()).wait()
        return None

    def wake(self) -> None:
        """Release every waiter (the server died or is closing)."""
        for event in self._events.values():
            event.set()
        self._events.clear()
