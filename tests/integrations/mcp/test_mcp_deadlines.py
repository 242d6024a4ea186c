"""The manager's one shared request timer (issue 25): every request still times out at its
own deadline, whichever request armed the timer."""

from __future__ import annotations

import asyncio

import pytest

from zengine_jupyter.integrations.mcp._deadlines import Deadlines


async def _request(deadlines: Deadlines, seconds: float) -> str:
    async with asyncio.timeout(None) as limit:
        deadlines.start(limit)
        try:
            await asyncio.sleep(seconds)
            return "answered"
        finally:
            deadlines.done(limit)


async def test_a_request_after_a_finished_one_times_out_at_its_own_deadline() -> None:
    """The first request arms the timer and finishes; the second, started later, hangs: the
    timer firing at the first one's deadline must not end it early, nor forget it."""
    deadlines = Deadlines(0.2)
    loop = asyncio.get_running_loop()
    assert await _request(deadlines, 0) == "answered"
    await asyncio.sleep(0.1)
    started = loop.time()
    with pytest.raises(TimeoutError):
        await _request(deadlines, 5)
    assert 0.15 <= loop.time() - started < 2


async def test_requests_in_flight_together_each_get_their_own_limit() -> None:
    deadlines = Deadlines(0.3)
    quick = asyncio.create_task(_request(deadlines, 0.05))
    slow = asyncio.create_task(_request(deadlines, 5))
    assert await quick == "answered"
    with pytest.raises(TimeoutError):
        await slow
    assert await _request(deadlines, 0) == "answered"  # the timer is armed again when needed


async def test_an_outside_cancel_stays_a_cancel() -> None:
    deadlines = Deadlines(5)
    task = asyncio.create_task(_request(deadlines, 5))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
