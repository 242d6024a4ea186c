"""JSON-RPC 2.0 over a pair of byte streams: id correlation, notifications both ways,
requests from the peer answered by registered handlers. Knows nothing about LSP.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeAlias

from zengine_jupyter.integrations.jsonrpc._framing import encode_frame, read_frame
from zengine_jupyter.protocol import (
    JsonRpcClosedError,
    JsonRpcError,
    JsonRpcRemoteError,
    JsonRpcTimeoutError,
)

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "ByteWriter",
    "JsonRpcConnection",
    "NotificationHandler",
    "RequestHandler",
]

_log = logging.getLogger(__name__)

INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603

RequestHandler: TypeAlias = Callable[[Any], Awaitable[Any]]
"""Answers one request from the peer: ``await handler(params)`` is the result."""
NotificationHandler: TypeAlias = Callable[[Any], None]
"""Takes one notification's params; runs synchronously in the reader task."""


class ByteWriter(Protocol):
    """The writing half of a stream (``asyncio.StreamWriter`` is one)."""

    def write(self, data: bytes) -> None: ...
    async def drain(self) -> None: ...
    def close(self) -> None: ...
    def is_closing(self) -> bool: ...


class JsonRpcConnection:
    """One JSON-RPC peer. Use as ``async with`` or call :meth:`start` then :meth:`aclose`.

    ``name`` appears in every error message (e.g. the server's name). ``cancel_method``,
    when set, is notified with ``{"id": ...}`` for a request abandoned on timeout or
    cancellation (LSP's ``$/cancelRequest``); the connection itself gives it no meaning.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: ByteWriter,
        *,
        name: str = "peer",
        default_timeout_s: float = 30.0,
        cancel_method: str | None = None,
    ) -> None:
        self.name = name
        self.default_timeout_s = default_timeout_s
        self._reader = reader
        self._writer = writer
        self._cancel_method = cancel_method
        self._ids = itertools.count(1)
        self._pending: dict[int | str, asyncio.Future[Any]] = {}
        self._request_handlers: dict[str, RequestHandler] = {}
        self._notification_handlers: dict[str, NotificationHandler] = {}
        self._handler_tasks: set[asyncio.Task[None]] = set()
        self._reader_task: asyncio.Task[None] | None = None
        self._closed: JsonRpcError | None = None
        self._closed_event = asyncio.Event()

    # ------------------------------------------------------------------ lifecycle
    async def __aenter__(self) -> JsonRpcConnection:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def start(self) -> None:
        """Start reading (idempotent). Register handlers before, so no message is missed."""
        if self._reader_task is None and self._closed is None:
            self._reader_task = asyncio.get_running_loop().create_task(
                self._read_loop(), name=f"jsonrpc-reader-{self.name}"
            )

    @property
    def closed(self) -> bool:
        return self._closed is not None

    @property
    def close_reason(self) -> JsonRpcError | None:
        """Why the connection ended (EOF, a malformed frame, :meth:`aclose`), else ``None``."""
        return self._closed

    async def wait_closed(self) -> JsonRpcError:
        """Wait until the connection ends; returns the reason."""
        await self._closed_event.wait()
        assert self._closed is not None
        return self._closed

    async def aclose(self) -> None:
        """Stop reading, fail pending requests, close the writer. Safe to call twice."""
        self._shut(JsonRpcClosedError(f"the connection to {self.name} was closed"))
        current = asyncio.current_task()
        tasks = [t for t in (self._reader_task, *self._handler_tasks) if t and t is not current]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if not self._writer.is_closing():
            self._writer.close()

    def _shut(self, reason: JsonRpcError) -> None:
        if self._closed is not None:
            return
        self._closed = reason
        for future in self._pending.values():
            if not future.done():
                future.set_exception(reason)
        self._pending.clear()
        self._closed_event.set()

    # ------------------------------------------------------------------ registration
    def on_request(self, method: str, handler: RequestHandler) -> None:
        """Answer the peer's ``method`` requests with ``await handler(params)``.

        Raise :class:`JsonRpcRemoteError` in the handler to reply with that error code.
        """
        self._request_handlers[method] = handler

    def on_notification(self, method: str, handler: NotificationHandler) -> None:
        """Call ``handler(params)`` (synchronously, in order) for each ``method`` notification."""
        self._notification_handlers[method] = handler

    # ------------------------------------------------------------------ sending
    async def request(
        self, method: str, params: Any = None, *, timeout_s: float | None = None
    ) -> Any:
        """Send a request and return its result; raises a :class:`JsonRpcError` subclass."""
        if self._closed is not None:
            raise self._closed
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        limit = self.default_timeout_s if timeout_s is None else timeout_s
        abandoned = True
        try:
            async with asyncio.timeout(limit):  # the write too: a peer may stop reading
                await self._send(message)
                result = await future
            abandoned = False
            return result
        except TimeoutError as exc:
            raise JsonRpcTimeoutError(
                f"{self.name} did not answer {method} within {limit:g} s",
                hint="the server may be busy or stuck; try again later",
            ) from exc
        except JsonRpcError:
            abandoned = False
            raise
        finally:
            self._pending.pop(request_id, None)
            if abandoned and self._cancel_method and self._closed is None:
                with contextlib.suppress(JsonRpcError):
                    await self._send(
                        {
                            "jsonrpc": "2.0",
                            "method": self._cancel_method,
                            "params": {"id": request_id},
                        }
                    )

    async def notify(self, method: str, params: Any = None) -> None:
        """Send a notification (no reply)."""
        if self._closed is not None:
            raise self._closed
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self._send(message)

    async def _send(self, message: dict[str, Any]) -> None:
        if self._writer.is_closing():
            reason = self._closed or JsonRpcClosedError(f"{self.name}'s input is closed")
            self._shut(reason)
            raise reason
        try:
            self._writer.write(encode_frame(message))  # one write per frame: never interleaved
            await self._writer.drain()
        except (ConnectionError, RuntimeError) as exc:
            reason = JsonRpcClosedError(f"{self.name} is gone: writing failed ({exc})")
            self._shut(reason)
            raise reason from exc

    # ------------------------------------------------------------------ receiving
    async def _read_loop(self) -> None:
        try:
            while True:
                message = await read_frame(self._reader, peer=self.name)
                if message is None:
                    self._shut(JsonRpcClosedError(f"{self.name} closed the connection"))
                    return
                for item in message if isinstance(message, list) else [message]:
                    self._dispatch(item)
        except JsonRpcError as exc:
            self._shut(exc)
        except (ConnectionError, OSError) as exc:
            self._shut(JsonRpcClosedError(f"{self.name} is gone: reading failed ({exc})"))

    def _dispatch(self, item: Any) -> None:
        if not isinstance(item, dict):
            _log.warning("%s sent a message that is not an object: %.200r", self.name, item)
            return
        method = item.get("method")
        if isinstance(method, str):
            if "id" in item:
                task = asyncio.get_running_loop().create_task(
                    self._answer(item["id"], method, item.get("params"))
                )
                self._handler_tasks.add(task)
                task.add_done_callback(self._handler_tasks.discard)
            else:
                self._notified(method, item.get("params"))
            return
        future = self._pending.get(item.get("id"))  # type: ignore[arg-type]
        if future is None or future.done():
            _log.debug("%s answered an unknown or abandoned request %r", self.name, item.get("id"))
            return
        error = item.get("error")
        if isinstance(error, dict):
            future.set_exception(
                JsonRpcRemoteError(
                    f"{self.name} answered with error {error.get('code')}: "
                    f"{str(error.get('message', ''))[:500]}",
                    code=int(error.get("code", INTERNAL_ERROR)),
                    data=error.get("data"),
                )
            )
        else:
            future.set_result(item.get("result"))

    def _notified(self, method: str, params: Any) -> None:
        handler = self._notification_handlers.get(method)
        if handler is None:
            return
        try:
            handler(params)
        except Exception:  # a faulty handler must not take the connection down
            _log.exception("handler for %s notification from %s failed", method, self.name)

    async def _answer(self, request_id: Any, method: str, params: Any) -> None:
        handler = self._request_handlers.get(method)
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
        if handler is None:
            reply["error"] = {"code": METHOD_NOT_FOUND, "message": f"method not found: {method}"}
        else:
            try:
                reply["result"] = await handler(params)
            except JsonRpcRemoteError as exc:
                reply["error"] = {"code": exc.code, "message": exc.message}
                if exc.data is not None:
                    reply["error"]["data"] = exc.data
            except Exception as exc:
                _log.exception("handler for %s request from %s failed", method, self.name)
                reply["error"] = {"code": INTERNAL_ERROR, "message": f"{type(exc).__name__}: {exc}"}
        with contextlib.suppress(JsonRpcError):
            await self._send(reply)
