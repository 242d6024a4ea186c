"""The manager's one shared request timer (issue 25): every request still times out at its
own deadline, whichever request armed the timer."""

from __future__ import annotations

import asyncio

import pytest

from zengine_jupyter.integrations.mcp._deadlines import Deadlines


async def _request(deadlines: Deadlines, seconds: float, *, cancelled_too: bool = False) -> str:
    """A request as ``McpManager._request`` times it (a sleep stands for the server);
    ``cancelled_too``: its task is also cancelled from outside as the request ends."""
    task = deadlines.start()
    try:
        try:
            await asyncio.sleep(seconds)
        finally:
            if cancelled_too:
                task.cancel()
            overdue = deadlines.done(task)
        return "answered"
    except asyncio.CancelledError:
        if overdue:
            raise TimeoutError from None
        raise


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


async def test_an_outside_cancel_of_an_overdue_request_stays_a_cancel() -> None:
    """Cancelled from outside after its deadline fired (as ``asyncio.Timeout``): a cancel."""
    deadlines = Deadlines(0.05)
    task = asyncio.create_task(_request(deadlines, 5, cancelled_too=True))
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_the_deadline_leaves_no_cancel_behind() -> None:
    """After a timed-out request the task goes on: no cancel pending, none counted."""
    deadlines = Deadlines(0.05)
    with pytest.raises(TimeoutError):
        await _request(deadlines, 5)
    task = asyncio.current_task()
    assert task is not None
    assert task.cancelling() == 0
    await asyncio.sleep(0.01)  # a pending cancel would land here
    assert await _request(deadlines, 0) == "answered"


async def test_a_request_is_timed_in_a_task() -> None:
    deadlines = Deadlines(1)
    loop = asyncio.get_running_loop()
    outside: asyncio.Future[str] = loop.create_future()

    def start_outside_a_task() -> None:
        try:
            deadlines.start()
        except RuntimeError as exc:
            outside.set_result(str(exc))

    loop.call_soon(start_outside_a_task)
    assert "in a task" in await asyncio.wait_for(outside, 1)
