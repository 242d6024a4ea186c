"""A local model provider: real HTTP/1.1 on 127.0.0.1, an ephemeral port, both wire formats.

    async with ProviderServer(api_key="sk-test") as server:
        server.add(Reply.fault(429, retry_after=2), Reply.answer("Hel", "lo"))
        # Anthropic clients use server.base_url (POST /v1/messages);
        # OpenAI-compatible clients use server.openai_url (POST /v1/chat/completions).
        ...
        assert server.requests[0].headers["x-api-key"] == "sk-test"

Each POST takes the next scripted ``Reply`` (``always`` sets one for every request). Requests
are checked the way the real APIs check them (version and auth headers, roles, tool-use /
tool-result pairing, thinking budget, cache breakpoints) and rejected with their real 400/401
bodies; every request is recorded, good or bad, with its headers. Responses are chunked, so
a drop mid-stream is a broken body, as with a real connection loss. ``GET`` serves ``files``
(and ``/v1/models``, the OpenAI-shaped list of ``models``).

``context_window`` (tokens, counted as the body's bytes / 4): a longer request is refused
with the wire's real "too long" 400 and takes no reply; while it is set, each answer's usage
reports that count as its input tokens (as a real provider reports its own count).

Chat-title requests (the engine's ``TITLE_SYSTEM`` prompt, sent in the background after a
chat's first turn) never take a scripted reply: they are kept in ``title_requests`` and
answered from ``title_replies`` (none left: a 400, so the chat keeps its default title).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from zengine_jupyter.testing._provider_script import (
    Reply,
    context_error_body,
    error_body,
    render_anthropic,
    render_openai,
)
from zengine_jupyter.testing._provider_validate import validate_anthropic, validate_openai

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ["ProviderServer", "ReceivedRequest"]

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
    529: "Overloaded",
}


_RENDERED: dict[tuple[int, str, str, bool], tuple[Reply, tuple[bytes, bytes]]] = {}
"""Rendered ``always`` replies (kept with their reply, so an id is never reused meanwhile)."""


@dataclass(frozen=True)
class ReceivedRequest:
    """One request as it arrived: header names lower-cased, body parsed when JSON."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    json: Any = None
    wire: str | None = None
    """``anthropic`` or ``openai`` by path; None for other paths."""
    rejected: str | None = None
    """The validation error it was answered with, if any."""
    at: float = field(default_factory=time.perf_counter)
    """When its body had arrived (``time.perf_counter``: benchmarks time up to it)."""


@dataclass
class _Script:
    queue: list[Reply] = field(default_factory=list)
    always: Reply | None = None


class ProviderServer:
    """The fake provider. ``hostname`` is the name used in its URLs (``localhost`` or
    ``127.0.0.1``); it always listens on 127.0.0.1 only."""

    def __init__(self, *, api_key: str | None = None, hostname: str = "127.0.0.1") -> None:
        self.api_key = api_key
        self.hostname = hostname
        self.requests: list[ReceivedRequest] = []
        self.files: dict[str, bytes] = {}
        self.models: list[str] = []
        """What ``GET /v1/models`` lists (the OpenAI shape), unless ``files`` has that path."""
        self.context_window: int | None = None
        self.title_requests: list[ReceivedRequest] = []
        self.title_replies: list[Reply] = []
        self._script = _Script()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    # ------------------------------------------------------------------ public API

    @property
    def base_url(self) -> str:
        """The root URL; Anthropic clients append ``/v1/messages``."""
        return f"http://{self.hostname}:{self.port}"

    @property
    def openai_url(self) -> str:
        """The OpenAI-compatible base URL (``.../v1``); clients append ``/chat/completions``."""
        return f"{self.base_url}/v1"

    def add(self, *replies: Reply) -> None:
        """Queue replies; each POST takes the next one."""
        self._script.queue.extend(replies)

    def always(self, reply: Reply | None) -> None:
        """Answer every POST with ``reply`` once the queue is empty (None: stop doing so)."""
        self._script.always = reply

    async def __aenter__(self) -> ProviderServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop listening and drop every open connection (idempotent)."""
        if self._server is not None:
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            for task in list(self._tasks):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            await self._server.wait_closed()
            self._server = None

    # ------------------------------------------------------------------ HTTP

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._one_request(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _one_request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        path = path.split("?", 1)[0]
        if method == "GET":
            self.requests.append(ReceivedRequest(method, path, headers, body))
            content = self.files.get(path)
            if content is None and path == "/v1/models":
                listed = [{"id": m, "object": "model", "owned_by": "test"} for m in self.models]
                content = json.dumps({"object": "list", "data": listed}).encode()
            if content is None:
                await _respond(writer, 404, {"content-type": "text/plain"}, b"not found")
            else:
                await _respond(writer, 200, {"content-type": "application/json"}, content)
            return
        wire = (
            "anthropic"
            if path.endswith("/messages")
            else "openai"
            if path.endswith("/chat/completions")
            else None
        )
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        problem, status = self._check(wire, headers, parsed)
        received = ReceivedRequest(method, path, headers, body, parsed, wire, problem)
        if wire is not None and problem is None and b"You name chats" in body and _is_title(parsed):
            self.title_requests.append(received)
            title = self.title_replies.pop(0) if self.title_replies else None
            if title is None:
                msg = error_body(wire, 400, "fake provider: no scripted title")
                await _respond(writer, 400, _json_headers(), msg)
            else:
                await self._answer(writer, wire, parsed if isinstance(parsed, dict) else {}, title)
            return
        self.requests.append(received)
        if wire is None:
            await _respond(writer, 404, {"content-type": "text/plain"}, b"not found")
            return
        if problem is not None:
            kind = "authentication_error" if status == 401 and wire == "anthropic" else None
            await _respond(writer, status, _json_headers(), error_body(wire, status, problem, kind))
            return
        tokens = -(-len(body) // 4)
        if self.context_window is not None and tokens > self.context_window:
            too_long = context_error_body(wire, tokens, self.context_window)
            await _respond(writer, 400, _json_headers(), too_long)
            return
        reply = self._next_reply()
        if reply is not None and self.context_window is not None:
            reply = dataclasses.replace(reply, usage=dataclasses.replace(reply.usage, input=tokens))
        if reply is None:
            await _respond(
                writer,
                400,
                _json_headers(),
                error_body(wire, 400, "fake provider: no scripted reply left"),
            )
            return
        await self._answer(writer, wire, parsed if isinstance(parsed, dict) else {}, reply)

    def _check(
        self, wire: str | None, headers: dict[str, str], body: Any
    ) -> tuple[str | None, int]:
        if wire is None:
            return None, 404
        if self.api_key is not None:
            bearer = headers.get("authorization", "")
            given = bearer[7:] if bearer.lower().startswith("bearer ") else None
            if wire == "anthropic" and given is None:
                given = headers.get("x-api-key")
            if given != self.api_key:
                if wire == "anthropic":
                    return "invalid x-api-key", 401
                shown = f"{given[:3]}{'*' * 12}{given[-4:]}" if given else "none"
                return f"Incorrect API key provided: {shown}.", 401
        if "application/json" not in headers.get("content-type", ""):
            return "content-type must be application/json", 400
        if wire == "anthropic":
            problem = validate_anthropic(headers, body)
        else:
            found = validate_openai(body)
            problem = found[0] if found else None
        if problem is None and body.get("stream") is not True:
            problem = "fake provider: only streaming requests are served (send stream: true)"
        return problem, 400

    def _next_reply(self) -> Reply | None:
        if self._script.queue:
            return self._script.queue.pop(0)
        return self._script.always

    def _render(self, wire: str, reply: Reply, model: str, usage: bool) -> tuple[bytes, bytes]:
        """``(body up to the last text delta, the rest)`` as HTTP chunks; cached per reply."""
        key = (id(reply), wire, model, usage)
        hit = _RENDERED.get(key)
        cached = hit[1] if hit is not None and hit[0] is reply else None
        if cached is None:
            if reply.raw:
                events, text_end = list(reply.raw), len(reply.raw)
            elif wire == "anthropic":
                events, text_end = render_anthropic(reply, model)
            else:
                events, text_end = render_openai(reply, model, usage)
            framed = [b"%x\r\n%s\r\n" % (len(e), e) for e in events]
            cached = (b"".join(framed[:text_end]), b"".join(framed[text_end:]) + b"0\r\n\r\n")
            if reply is self._script.always:  # e.g. a benchmark's big stream, rendered once
                if len(_RENDERED) >= 8:
                    _RENDERED.pop(next(iter(_RENDERED)))
                _RENDERED[key] = (reply, cached)
        return cached

    async def _answer(
        self, writer: asyncio.StreamWriter, wire: str, body: dict[str, Any], reply: Reply
    ) -> None:
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.drop == "before_first_byte":
            writer.transport.abort()
            return
        extra = dict(reply.headers)
        if reply.retry_after is not None:
            extra["retry-after"] = reply.retry_after
        if reply.status != 200:
            await _respond(
                writer,
                reply.status,
                {**_json_headers(), **extra},
                context_error_body(wire, *reply.too_long)
                if reply.too_long is not None
                else error_body(wire, reply.status, reply.error_message),
            )
            return
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        head, tail = self._render(wire, reply, str(body.get("model")), usage)
        writer.write(
            _status_line(
                200,
                {
                    "content-type": "text/event-stream",
                    "cache-control": "no-cache",
                    "transfer-encoding": "chunked",
                    **extra,
                },
            )
        )
        if reply.event_delay_s:
            await self._trickle(writer, wire, reply, str(body.get("model")), usage)
            return
        writer.write(head)
        await writer.drain()
        if reply.drop == "after_text":
            writer.transport.abort()
            return
        writer.write(tail)
        await writer.drain()

    async def _trickle(
        self, writer: asyncio.StreamWriter, wire: str, reply: Reply, model: str, usage: bool
    ) -> None:
        """One event every ``event_delay_s`` (a slow model; lets a test interrupt a turn)."""
        if reply.raw:
            events, text_end = list(reply.raw), len(reply.raw)
        elif wire == "anthropic":
            events, text_end = render_anthropic(reply, model)
        else:
            events, text_end = render_openai(reply, model, usage)
        for n, event in enumerate(events):
            if n == text_end and reply.drop == "after_text":
                writer.transport.abort()
                return
            writer.write(b"%x\r\n%s\r\n" % (len(event), event))
            await writer.drain()
            await asyncio.sleep(reply.event_delay_s)
        writer.write(b"0\r\n\r\n")
        await writer.drain()


def _is_title(body: Any) -> bool:
    """Whether ``body`` asks for a chat title (the engine's title prompt as its system)."""
    from zengine_jupyter.engine import TITLE_SYSTEM

    if not isinstance(body, dict):
        return False
    system = body.get("system")
    if isinstance(system, list):
        system = " ".join(b.get("text", "") for b in system if isinstance(b, dict))
    if not isinstance(system, str):
        first = (body.get("messages") or [{}])[0]
        system = first.get("content") if isinstance(first, dict) else None
        if isinstance(system, list):
            system = " ".join(b.get("text", "") for b in system if isinstance(b, dict))
    return isinstance(system, str) and TITLE_SYSTEM in system


def _json_headers() -> dict[str, str]:
    return {"content-type": "application/json", "request-id": "req_011CfakeProvider"}


def _status_line(status: int, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}", "connection: close"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def _respond(
    writer: asyncio.StreamWriter, status: int, headers: dict[str, str], body: bytes
) -> None:
    writer.write(_status_line(status, {**headers, "content-length": str(len(body))}) + body)
    await writer.drain()
