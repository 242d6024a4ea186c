"""Acceptance 2: the fault matrix, for both adapters, against the real local server.

Attempts are counted as requests the server received; waits come from a fake clock, so no
test sleeps through a backoff. Connect and read timeouts are real (0.2 s deadlines).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from zengine_jupyter.llm import ClientDeps, ProviderKind, ProviderOptions, Timeouts
from zengine_jupyter.testing import FakeClock, ProviderServer, Reply, unresponsive_port
from zengine_jupyter.testing.llm import KEY, final_error, stream_once, text_of

ENV = {"ZENGINE_API_KEY": KEY}
FAST = Timeouts(connect_s=0.2, read_s=0.2)
"""For the connect-timeout test: an unresponsive port never answers, however loaded the box."""
READ = Timeouts(read_s=1.0)
"""The read-timeout case: a reply held 2.5 s times out; a normal one, even on a busy shared
machine, never goes a whole second without a byte."""
WIRES = ["anthropic", "openai"]


@dataclass(frozen=True)
class Case:
    script: tuple[Reply, ...]
    attempts: int
    waits: list[float]
    text: str
    fallback_used: bool = False


OK = Reply.answer("fine")
CASES = {
    "429 with retry-after": Case((Reply.fault(429, retry_after=3), OK), 2, [3.0], "fine"),
    "429 retry-after capped at 60 s": Case(
        (Reply.fault(429, retry_after=600), OK), 2, [60.0], "fine"
    ),
    "529 overloaded": Case((Reply.fault(529), Reply.fault(529), OK), 3, [0.5, 1.0], "fine"),
    "500": Case((Reply.fault(500), OK), 2, [0.5], "fine"),
    "503 with retry-after": Case((Reply.fault(503, retry_after=2), OK), 2, [2.0], "fine"),
    "overloaded inside a 200 stream": Case(
        (Reply(stream_error="overloaded_error"), OK), 2, [0.5], "fine"
    ),
    "read timeout": Case((Reply(text=("late",), delay_s=2.5), OK), 2, [0.5], "fine"),
    "drop before first byte": Case((Reply(drop="before_first_byte"), OK), 2, [0.5], "fine"),
    "5 failures then the fallback": Case(
        (*[Reply.fault(529)] * 5, Reply.answer("from fallback")),
        6,
        [0.5, 1.0, 2.0, 4.0],
        "from fallback",
        fallback_used=True,
    ),
}


def _options(
    wire: ProviderKind, server: ProviderServer, fallbacks: tuple[str, ...] = ()
) -> ProviderOptions:
    url = server.base_url if wire == "anthropic" else server.openai_url
    return ProviderOptions(
        model="main-model",
        kind=wire,
        base_url=url,
        fallbacks=fallbacks,
        timeouts=READ,
    )


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("name", list(CASES))
async def test_fault_is_retried_then_answered(wire: ProviderKind, name: str) -> None:
    case = CASES[name]
    clock = FakeClock()
    async with ProviderServer(api_key=KEY) as server:
        server.add(*case.script)
        events = await stream_once(
            _options(wire, server, ("fallback-model",)),
            deps=ClientDeps(environ=ENV, sleep=clock.sleep),
        )
    assert len(server.requests) == case.attempts
    assert clock.waits == case.waits
    retries = [e for e in events if e.type == "retry"]
    assert [e.wait_s for e in retries] == case.waits
    assert [e.attempt for e in retries] == list(range(2, 2 + len(case.waits)))
    assert text_of(events) == case.text
    assert events[-1].type == "stop"
    models = [r.json["model"] for r in server.requests]
    if case.fallback_used:
        assert [e.type for e in events].count("fallback") == 1
        assert models == ["main-model"] * 5 + ["fallback-model"]
    else:
        assert set(models) == {"main-model"}
        assert not [e for e in events if e.type == "fallback"]


@pytest.mark.parametrize("wire", WIRES)
async def test_drop_after_text_is_final_and_keeps_the_partial_text(wire: ProviderKind) -> None:
    clock = FakeClock()
    async with ProviderServer(api_key=KEY) as server:
        server.add(Reply(text=("partial ", "answer"), drop="after_text"), OK)
        events = await stream_once(
            _options(wire, server, ("fallback-model",)),
            deps=ClientDeps(environ=ENV, sleep=clock.sleep),
        )
    assert len(server.requests) == 1  # no retry, no fallback once text streamed
    assert clock.waits == []
    assert text_of(events) == "partial answer"
    error = events[-1]
    assert error.type == "error"
    assert error.after_text
    assert error.kind == "connection"
    assert not [e for e in events if e.type in ("retry", "fallback")]


@pytest.mark.parametrize("wire", WIRES)
async def test_stream_error_after_text_is_final(wire: ProviderKind) -> None:
    async with ProviderServer(api_key=KEY) as server:
        server.add(Reply(text=("half",), stream_error="overloaded_error"), OK)
        events = await stream_once(
            _options(wire, server), deps=ClientDeps(environ=ENV, sleep=FakeClock().sleep)
        )
    assert len(server.requests) == 1
    assert text_of(events) == "half"
    assert events[-1].type == "error"
    assert events[-1].after_text


@pytest.mark.parametrize("wire", WIRES)
async def test_connect_timeout_uses_all_five_attempts_then_fails(wire: ProviderKind) -> None:
    clock = FakeClock()
    with unresponsive_port() as port:
        base = f"http://127.0.0.1:{port}" + ("/v1" if wire == "openai" else "")
        options = ProviderOptions(model="m", kind=wire, base_url=base, timeouts=FAST)
        events = await stream_once(options, deps=ClientDeps(environ=ENV, sleep=clock.sleep))
    assert clock.waits == [0.5, 1.0, 2.0, 4.0]
    assert [e.type for e in events] == ["retry"] * 4 + ["error"]
    assert final_error(events).kind == "timeout"
    assert "could not connect to 127.0.0.1" in final_error(events).message


@pytest.mark.parametrize("wire", WIRES)
async def test_client_error_is_not_retried_and_auth_errors_skip_fallbacks(
    wire: ProviderKind,
) -> None:
    clock = FakeClock()
    async with ProviderServer(api_key="sk-other-key-000000000000") as server:
        events = await stream_once(
            _options(wire, server, ("fallback-model",)),
            deps=ClientDeps(environ=ENV, sleep=clock.sleep),
        )
    assert len(server.requests) == 1
    assert clock.waits == []
    assert [e.type for e in events] == ["error"]
    assert final_error(events).status == 401
    assert "auth login" in (final_error(events).hint or "")


def test_backoff_doubles_up_to_16_s_and_retry_after_caps_at_60_s() -> None:
    from zengine_jupyter.llm import RetryPolicy

    policy = RetryPolicy(attempts=9)
    assert [policy.wait_s(n) for n in range(1, 9)] == [0.5, 1, 2, 4, 8, 16, 16, 16]
    assert policy.wait_s(1, retry_after_s=90) == 60
    assert policy.wait_s(3, retry_after_s=0.25) == 0.25
