"""Streaming a 10,000-event answer through the adapter vs a bare httpx SSE read of it.

Both sides read the same scripted stream from the same local provider server
(``zengine_jupyter.testing.ProviderServer``; the stream is rendered once and cached, so the
server's share is one large write). The baseline is the least any SSE client does: httpx's
``aiter_lines`` and ``json.loads`` of each ``data:`` line. Ours is the whole ``ModelClient``
path: SSE decoding, the wire format's events turned into typed ``StreamEvent``s, retry
bookkeeping, usage and its price. Only the stream is timed (clients are built before), in
CPU seconds of this process (``time.process_time``: client and server run in it, and the
server's share is the same on both sides), so other work on a shared machine does not skew
one side's wall time. Even CPU seconds moved by 0.76-1.26x between runs of the same code (the
anthropic row, one stream per side per sample), so one sample is ``PAIRS`` streams of each
side, interleaved, keeping each side's least (``benchmarks/_pairs.py``).
"""

from __future__ import annotations

import asyncio
import json
import time

import httpx

from benchmarks._harness import Benchmark
from benchmarks._pairs import Pairs
from zengine_jupyter.llm import ClientDeps, ProviderClient, ProviderOptions, build_client
from zengine_jupyter.llm._endpoint import CallSpec, detect_endpoint
from zengine_jupyter.llm.anthropic import build_body as anthropic_body
from zengine_jupyter.llm.openai import build_body as openai_body
from zengine_jupyter.protocol import Message, ModelRequest, TextPart
from zengine_jupyter.testing import ProviderServer, Reply

EVENTS = 10_000
PAIRS = 3
_OVERHEAD = {"anthropic": 6, "openai": 4}  # events around the text deltas in each format
_REQUEST = ModelRequest(messages=[Message(role="user", content=[TextPart(text="go")])])
_MODEL = "bench-model"


_REPLIES = {
    wire: Reply(text=tuple(f"tok{i} " for i in range(EVENTS - extra)), ping=True)
    for wire, extra in _OVERHEAD.items()
}
"""One object per format, so the server renders each stream once (in the warm-up run)."""


def _reply(wire: str) -> Reply:
    return _REPLIES[wire]


def _url(server: ProviderServer, wire: str) -> str:
    return server.base_url if wire == "anthropic" else server.openai_url


async def _ours(wire: str) -> float:
    async with ProviderServer() as server:
        server.always(_reply(wire))
        options = ProviderOptions(model=_MODEL, kind=wire, base_url=_url(server, wire))  # type: ignore[arg-type]
        client = build_client(options, deps=ClientDeps(environ={}))
        assert isinstance(client, ProviderClient)
        await client.prepare()  # the baseline's httpx client is made before its timer too
        try:
            start = time.process_time()
            count = 0
            async for _event in client.stream(_REQUEST):
                count += 1
            elapsed = time.process_time() - start
        finally:
            await client.aclose()
    assert count == EVENTS - _OVERHEAD[wire] + 2, count  # text deltas + usage + stop
    return elapsed


async def _baseline(wire: str) -> float:
    async with ProviderServer() as server:
        server.always(_reply(wire))
        endpoint = detect_endpoint(wire, _url(server, wire), _MODEL)  # type: ignore[arg-type]
        call = CallSpec(_MODEL, "medium", _REQUEST.max_tokens)
        if wire == "anthropic":
            body = anthropic_body(_REQUEST, call)
            url = f"{endpoint.base_url}/v1/messages"
            headers = {"content-type": "application/json", "anthropic-version": "2023-06-01"}
        else:
            body = openai_body(_REQUEST, call, endpoint)
            url = f"{endpoint.base_url}/chat/completions"
            headers = {"content-type": "application/json"}
        content = json.dumps(body).encode()
        async with httpx.AsyncClient(trust_env=False) as http:
            start = time.process_time()
            count = 0
            async with http.stream("POST", url, headers=headers, content=content) as resp:
                async for line in resp.aiter_lines():
                    if line.startswith("data:"):
                        data = line[5:].strip()
                        if data != "[DONE]":
                            json.loads(data)
                        count += 1
            elapsed = time.process_time() - start
    assert count == EVENTS, count
    return elapsed


def _row(wire: str) -> Benchmark:
    pairs = Pairs(
        lambda: asyncio.run(_ours(wire)), lambda: asyncio.run(_baseline(wire)), PAIRS,
        measured=True,
    )  # fmt: skip
    return Benchmark(
        f"stream 10k events, {wire} adapter vs bare httpx SSE",
        ours=pairs.ours, baseline=pairs.theirs, repeat=7, max_ratio=1.1,
    )  # fmt: skip


def benchmarks() -> list[Benchmark]:
    return [_row(wire) for wire in ("anthropic", "openai")]
