"""Helpers shared by the model-provider tests: a fake API key, a one-message request, the
events (or text) a client streams for it (``stream_once`` builds and closes the client), and
the error a stream ended with."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.llm import build_client
from zengine_jupyter.protocol import ErrorEvent, Message, ModelRequest, TextPart

if TYPE_CHECKING:
    from zengine_jupyter.llm import ClientDeps, ModelClient, ProviderOptions, Role
    from zengine_jupyter.protocol import StreamEvent

KEY = "sk-test-Zq8RANDOMkeyVALUE0123456789"


def ask(text: str = "hello", **kwargs: object) -> ModelRequest:
    return ModelRequest(
        system="You are terse.",
        messages=[Message(role="user", content=[TextPart(text=text)])],
        **kwargs,  # type: ignore[arg-type]
    )


async def collect(client: ModelClient, request: ModelRequest | None = None) -> list[StreamEvent]:
    return [event async for event in client.stream(request or ask())]


async def stream_once(
    options: ProviderOptions,
    *,
    deps: ClientDeps | None = None,
    request: ModelRequest | None = None,
    role: Role = "main",
) -> list[StreamEvent]:
    """Build the client for ``options``, stream one request (``ask()`` by default), close it."""
    client = build_client(options, role, deps)
    try:
        return await collect(client, request)
    finally:
        await client.aclose()


def text_of(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if e.type == "text")


def final_error(events: list[StreamEvent]) -> ErrorEvent:
    """The stream's last event, which must be an error."""
    last = events[-1]
    assert isinstance(last, ErrorEvent), last
    return last
