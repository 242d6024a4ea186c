"""The HTTP edge shared by both adapters: one POST that streams SSE, httpx errors translated.

Everything raised from here is a ``ProviderError`` whose message names the host and never
contains a key (provider messages are scrubbed of anything key-shaped).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import re
import time
from typing import TYPE_CHECKING, Any

from zengine_jupyter.llm._httpx import httpx
from zengine_jupyter.protocol import (
    ContextTooLongError,
    ProviderConnectionError,
    ProviderStatusError,
    ProviderStreamError,
    ProviderTimeoutError,
    escape_surrogates_in,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Mapping

    from zengine_jupyter.llm._keys import Secret
    from zengine_jupyter.llm._options import Timeouts

__all__ = [
    "MALFORMED",
    "LazyHttp",
    "is_context_overflow",
    "make_http_client",
    "malformed",
    "open_stream",
    "parse_retry_after",
    "redact",
    "status_error",
]

_KEYISH = re.compile(r"\b(?:(?:sk|pk|rk)[-_]|gsk_|xai-|AIza)[-_A-Za-z0-9*.]{6,}[-_A-Za-z0-9*]")
_MAX_MESSAGE = 300


def redact(text: str, secret: Secret | None = None) -> str:
    """``text`` without the key itself or anything shaped like a key (``sk-...``, ``AIza...``)."""
    if secret is not None and secret.reveal():
        text = text.replace(secret.reveal(), "[redacted]")
    return _KEYISH.sub("[redacted]", text)


MALFORMED = (KeyError, TypeError, AttributeError, IndexError, ValueError, RecursionError)
"""What reading an event of an unexpected shape raises (pydantic's ValidationError included)."""


def malformed(host: str, exc: Exception) -> ProviderStreamError:
    """A stream event this client cannot read: a provider error, not a crash."""
    return ProviderStreamError(
        f"{host} sent a stream event this client cannot read ({type(exc).__name__})",
        hint="the provider may not be fully compatible; try provider.kind or another model",
    )


def make_http_client(timeouts: Timeouts, *, local: bool) -> httpx.AsyncClient:
    """One pooled client per model client; redirects are never followed (a key stays on its
    host) and a local server is reached directly, never through a proxy."""
    return httpx.AsyncClient(
        timeout=httpx.Timeout(
            connect=timeouts.connect_s,
            read=timeouts.read_s,
            write=timeouts.write_s,
            pool=timeouts.pool_s,
        ),
        follow_redirects=False,
        trust_env=not local,
    )


class LazyHttp:
    """The adapter's ``httpx.AsyncClient``, made on first use in a worker thread (building
    one loads the CA bundle: tens of ms that must not block the event loop)."""

    def __init__(self, timeouts: Timeouts, *, local: bool) -> None:
        self._timeouts = timeouts
        self._local = local
        self._client: httpx.AsyncClient | None = None
        self._lock = asyncio.Lock()
        self._closed = False

    async def get(self) -> httpx.AsyncClient:
        if self._closed:
            raise RuntimeError("this model client was closed (aclose); build a new one")
        if self._client is None:
            async with self._lock:
                if self._client is None:
                    self._client = await asyncio.to_thread(
                        make_http_client, self._timeouts, local=self._local
                    )
        return self._client

    async def aclose(self) -> None:
        """Idempotent; a client never used was never made."""
        self._closed = True
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds the provider asks us to wait: ``retry-after-ms``, ``retry-after`` as seconds or
    as an HTTP date; None when absent or unreadable."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _error_fields(body: bytes) -> tuple[str | None, str | None, str]:
    """``(error type, error code, message)`` from an Anthropic or OpenAI(-compatible) error
    body (Anthropic has no code; OpenAI's ``code`` may be a string, a number or null)."""
    try:
        data: Any = json.loads(body)
    except ValueError:
        return None, None, body.decode("utf-8", "replace").strip()
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        kind, code = err.get("type"), err.get("code")
        return (
            str(kind) if kind is not None else None,
            str(code) if code is not None else None,
            str(err.get("message", "")),
        )
    if isinstance(err, str):
        return None, None, err
    return None, None, body.decode("utf-8", "replace").strip()


_OVERFLOW = re.compile(
    r"prompt is too long|context[ _-]?length|context window|maximum context|"
    r"too many (?:input )?tokens|exceeds? the (?:model's )?(?:max(?:imum)? )?context",
    re.IGNORECASE,
)


def is_context_overflow(status: int, kind: str | None, code: str | None, message: str) -> bool:
    """Whether an error answer says the request is longer than the model's context window.

    Anthropic: 400 ``invalid_request_error`` "prompt is too long: 205351 tokens > 200000
    maximum" (and 413 ``request_too_large``); OpenAI: 400 with code
    ``context_length_exceeded`` ("This model's maximum context length is ... tokens");
    OpenAI-compatible servers (vLLM, OpenRouter, DeepSeek) word it like OpenAI without the
    code. A rate limit or server error is never one, whatever its words."""
    if code == "context_length_exceeded" or kind == "request_too_large":
        return True
    return status in (400, 413, 422) and bool(_OVERFLOW.search(message))


_HINTS = {
    401: "check the API key for {host}: run `zengine auth login {host}` or set its variable",
    403: "the key for {host} may not have access to this model",
    402: "the account at {host} is out of credit",
    404: "check the model name and the provider's base URL",
    413: "the request is too large; compact the conversation",
    429: "rate limited; it is retried automatically, or try again later",
}


def status_error(
    status: int, headers: Mapping[str, str], body: bytes, host: str, secret: Secret | None
) -> ProviderStatusError:
    kind, code, message = _error_fields(body)
    message = redact(message, secret)[:_MAX_MESSAGE]
    should = headers.get("x-should-retry", "").lower()
    retryable = status in (408, 409, 429) or status >= 500
    if should in ("true", "false"):
        retryable = should == "true"
    label = f"{status} {kind or code}" if kind or code else str(status)
    hint = _HINTS.get(status, "").format(host=host) or None
    cls = ProviderStatusError
    if is_context_overflow(status, kind, code, message):
        cls, retryable = ContextTooLongError, False
        hint = "the conversation is longer than the model's context window: /compact it"
    return cls(
        f"{host} answered {label}: {message}" if message else f"{host} answered {label}",
        hint=hint,
        status=status,
        retryable=retryable,
        retry_after_s=parse_retry_after(headers),
    )


_NOT_STREAMS = {"application/json": "JSON", "text/html": "an HTML page"}
_SSE_STARTS = (b"data:", b"event:", b":", b"id:", b"retry:")


async def _stream_body(
    resp: httpx.Response, host: str, secret: Secret | None
) -> AsyncIterator[bytes]:
    """The body's raw chunks. A 2xx that is plainly not an event stream (a server that
    ignores ``stream: true`` and sends one JSON completion, a proxy's HTML page) fails at
    once, saying what came: asking again would get the same answer. (A body that starts like
    SSE is read as SSE whatever its content type says.)"""
    raw = resp.aiter_raw()
    ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
    what = _NOT_STREAMS.get(ctype) or ("JSON" if ctype.endswith("+json") else None)
    if what is None:
        async for chunk in raw:
            yield chunk
        return
    head = b""
    async for chunk in raw:
        head += chunk
        if head.strip() or len(head) >= 4096:
            break
    if head.lstrip().startswith(_SSE_STARTS):
        yield head
        async for chunk in raw:
            yield chunk
        return
    async for chunk in raw:
        if len(head) >= 4096:
            break
        head += chunk
    sent = " ".join(redact(head.decode("utf-8", "replace"), secret).split())
    sent = sent if len(sent) <= 200 else sent[:197] + "..."
    raise ProviderStreamError(
        f"{host} answered with {what} instead of a stream: {sent}",
        hint="the server ignored stream=true; check that provider.base_url is its streaming API "
        "(OpenAI-compatible .../v1, or Anthropic's host) and provider.kind",
        status=resp.status_code,
        retryable=False,
    )


def _body(payload: dict[str, Any]) -> bytes:
    """The request body as UTF-8 JSON; text UTF-8 cannot encode (a lone surrogate kept in the
    log) is sent as the visible ``\\ud800``, so the body is always valid."""
    try:
        return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    except UnicodeEncodeError:
        shown = escape_surrogates_in(payload)
        return json.dumps(shown, ensure_ascii=False, separators=(",", ":")).encode()


@contextlib.asynccontextmanager
async def open_stream(
    http: httpx.AsyncClient,
    url: str,
    headers: Mapping[str, str],
    payload: dict[str, Any],
    secret: Secret | None,
) -> AsyncIterator[AsyncIterator[bytes]]:
    """POST ``payload``; the body's raw chunks inside the block. Any httpx error, in the
    request or while the block reads the body, leaves as a ``ProviderError``."""
    host = httpx.URL(url).host
    content = _body(payload)
    try:
        async with http.stream("POST", url, headers=headers, content=content) as resp:
            if resp.status_code >= 300:  # redirects are not followed: a key stays on its host
                body = await resp.aread()
                raise status_error(resp.status_code, resp.headers, body, host, secret)
            yield _stream_body(resp, host, secret)
    except httpx.ConnectTimeout as exc:
        raise ProviderTimeoutError(
            f"could not connect to {host} in time", hint="check the network or the base URL"
        ) from exc
    except httpx.TimeoutException as exc:
        raise ProviderTimeoutError(
            f"{host} stopped sending ({type(exc).__name__})", hint="the provider may be overloaded"
        ) from exc
    except httpx.ConnectError as exc:
        raise ProviderConnectionError(
            f"could not connect to {host}", hint="check the network, the base URL or the server"
        ) from exc
    except httpx.TransportError as exc:
        raise ProviderConnectionError(
            f"the connection to {host} was lost ({type(exc).__name__})",
            hint="the provider closed the connection; it is retried automatically",
        ) from exc
