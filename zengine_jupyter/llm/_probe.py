"""The setup view's "Test": one tiny request through the real client, its answer or the
provider's exact error (one attempt: a failure is shown at once, not retried for a minute)."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from zengine_jupyter.llm._client import build_client
from zengine_jupyter.llm._options import RetryPolicy, Timeouts
from zengine_jupyter.protocol import Message, ModelRequest, SetupTestResult, TextPart

if TYPE_CHECKING:
    from zengine_jupyter.llm._client import ClientDeps
    from zengine_jupyter.llm._options import ProviderOptions

__all__ = ["PROBE_PROMPT", "probe_model"]

PROBE_PROMPT = "Reply with one short sentence: which model are you?"
_TIMEOUTS = Timeouts(connect_s=10.0, read_s=60.0, write_s=10.0, pool_s=10.0)


async def probe_model(options: ProviderOptions, deps: ClientDeps | None = None) -> SetupTestResult:
    """Ask ``options``' main model :data:`PROBE_PROMPT` (at most 64 output tokens)."""
    options = replace(options, retry=RetryPolicy(attempts=1), fallbacks=(), timeouts=_TIMEOUTS,
                      record=None, effort=None)  # fmt: skip
    model = options.model or ""
    client = build_client(options, "main", deps)
    request = ModelRequest(
        messages=[Message(role="user", content=[TextPart(text=PROBE_PROMPT)])], max_tokens=64
    )
    started = time.monotonic()
    text: list[str] = []
    try:
        async for event in client.stream(request):
            if event.type == "text":
                text.append(event.text)
            elif event.type == "error":
                status = f"{event.status}: " if event.status else ""
                return SetupTestResult(ok=False, model=model, answer="".join(text),
                                       error=f"{status}{event.message}", hint=event.hint,
                                       seconds=round(time.monotonic() - started, 2))  # fmt: skip
    finally:
        await client.aclose()
    return SetupTestResult(ok=True, model=model, answer="".join(text).strip(),
                           seconds=round(time.monotonic() - started, 2))  # fmt: skip
