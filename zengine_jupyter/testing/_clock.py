"""A fake sleep for retry tests: records every wait and returns at once."""

from __future__ import annotations

import asyncio

__all__ = ["FakeClock"]


class FakeClock:
    """Pass ``clock.sleep`` where a component takes a sleep function; read ``waits`` after."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    @property
    def now(self) -> float:
        """Seconds of fake time that have passed (the sum of the waits)."""
        return sum(self.waits)

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(0)
