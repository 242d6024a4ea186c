"""A request longer than the model's context window (issue 21.3): both wires' real 400 bodies
become an ``error`` event of kind ``context_length`` (typed ``ContextTooLongError``), never
retried; other 400s and rate limits are not taken for one."""

from __future__ import annotations

import pytest

from zengine_jupyter.llm import ClientDeps, ProviderOptions, build_client
from zengine_jupyter.llm._http import is_context_overflow, status_error
from zengine_jupyter.protocol import ContextTooLongError, ProviderStatusError
from zengine_jupyter.testing import FakeClock, ProviderServer, Reply
from zengine_jupyter.testing._provider_script import context_error_body, error_body
from zengine_jupyter.testing.llm import KEY, collect


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_the_providers_too_long_answer_is_a_context_length_error(wire: str) -> None:
    clock = FakeClock()
    async with ProviderServer(api_key=KEY) as server:
        server.add(Reply.context_overflow(130_000, 128_000))
        url = server.base_url if wire == "anthropic" else server.openai_url
        client = build_client(
            ProviderOptions(model="m", kind=wire, base_url=url, fallbacks=()),  # type: ignore[arg-type]
            deps=ClientDeps(environ={"ZENGINE_API_KEY": KEY}, sleep=clock.sleep),
        )
        try:
            events = await collect(client)
        finally:
            await client.aclose()
    assert len(server.requests) == 1  # not retried: the same request would fail the same way
    error = events[-1]
    assert error.type == "error"
    assert error.kind == "context_length"
    assert error.status == 400
    assert "130000" in error.message
    assert error.hint is not None
    assert "/compact" in error.hint


@pytest.mark.parametrize(
    ("wire", "status", "body"),
    [
        ("anthropic", 400, context_error_body("anthropic", 205_351, 200_000)),
        ("openai", 400, context_error_body("openai", 4_294, 4_097)),
        # DeepSeek: the OpenAI wording without the code
        ("openai", 400, error_body("openai", 400, "This model's maximum context length is "
                                   "131072 tokens. However, you requested 131134 tokens.")),
        ("anthropic", 413, error_body("anthropic", 413, "Request exceeds the maximum size")),
    ],
)  # fmt: skip
def test_overflow_bodies_are_recognised(wire: str, status: int, body: bytes) -> None:
    error = status_error(status, {}, body, "example.test", None)
    assert isinstance(error, ContextTooLongError)
    assert not error.retryable


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (400, error_body("anthropic", 400, "messages.1: tool_use ids were found without results")),
        (429, error_body("openai", 429, "Rate limit reached: too many tokens per minute")),
        (500, error_body("anthropic", 500, "context length service down")),
    ],
)
def test_other_errors_are_not_taken_for_an_overflow(status: int, body: bytes) -> None:
    error = status_error(status, {}, body, "example.test", None)
    assert type(error) is ProviderStatusError


def test_the_rule_reads_type_code_and_words() -> None:
    assert is_context_overflow(400, "invalid_request_error", "context_length_exceeded", "")
    assert is_context_overflow(400, None, None, "prompt is too long: 5 tokens > 4 maximum")
    assert not is_context_overflow(429, None, None, "prompt is too long")
