"""The SSE decoder against the WHATWG rules, fed in awkward chunk splits."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from zengine_jupyter.llm import SSEDecoder

STREAM = (
    b": OPENROUTER PROCESSING\r\n\r\n"
    b'event: message_start\r\ndata: {"a": 1}\r\n\r\n'
    b'data:{"no":"space"}\n\n'
    b"event: multi\ndata: line one\ndata: line two\n\n"
    b"data: caf\xc3\xa9 \xe2\x82\xac\r\r"
    b"event: ping\ndata\n\n"
    b"data: [DONE]\n\n"
    b"data: cut off without its blank line"
)
EXPECTED = [
    ("message_start", '{"a": 1}'),
    ("", '{"no":"space"}'),
    ("multi", "line one\nline two"),
    ("", "café €"),
    ("ping", ""),
    ("", "[DONE]"),
]


def _decode(chunks: list[bytes]) -> list[tuple[str, str]]:
    decoder = SSEDecoder()
    out = [item for chunk in chunks for item in decoder.feed(chunk)]
    return out + decoder.close()


def test_whole_stream() -> None:
    assert _decode([STREAM]) == EXPECTED


def test_byte_by_byte_splits_crlf_and_multibyte_characters() -> None:
    assert _decode([STREAM[i : i + 1] for i in range(len(STREAM))]) == EXPECTED


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_any_chunking_gives_the_same_events(cuts: list[int]) -> None:
    points = [0, *sorted(cuts), len(STREAM)]
    chunks = [STREAM[a:b] for a, b in itertools.pairwise(points)]
    assert _decode(chunks) == EXPECTED


async def test_aiter_sse_over_an_async_byte_stream() -> None:
    from collections.abc import AsyncIterator

    from zengine_jupyter.llm import aiter_sse

    async def chunks() -> AsyncIterator[bytes]:
        for i in range(0, len(STREAM), 7):
            yield STREAM[i : i + 7]

    assert [item async for item in aiter_sse(chunks())] == EXPECTED
