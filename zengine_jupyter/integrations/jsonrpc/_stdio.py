"""A long-lived child process spoken to with JSON-RPC over its stdin and stdout.

Same discipline as ``host.run``: an argv list (never a shell), the environment allowlist,
its own process group, and a stop that escalates (close stdin, SIGTERM, SIGKILL).
stderr is drained into a short tail kept for error messages.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import signal
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zengine_jupyter.host import child_environment
from zengine_jupyter.integrations.jsonrpc._connection import JsonRpcConnection
from zengine_jupyter.protocol import ProcessError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

__all__ = ["StdioOptions", "StdioPeer", "spawn_stdio_peer"]

_STDERR_LINES = 40
_STDERR_SETTLE_S = 0.5
"""How long a failure waits for the rest of an exiting child's stderr."""
_STREAM_LIMIT = 1024 * 1024
_EXIT_POLL_S = 0.1


@dataclass(frozen=True)
class StdioOptions:
    """How to start one stdio peer."""

    name: str
    """Shown in every message about it (the server's name)."""
    cwd: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    """Added on top of the allowlisted environment."""
    default_timeout_s: float = 30.0
    cancel_method: str | None = None
    grace_s: float = 2.0
    """How long to wait after closing stdin (and again after SIGTERM) before escalating."""


class StdioPeer:
    """The child process and the :class:`JsonRpcConnection` over its pipes."""

    def __init__(
        self, proc: asyncio.subprocess.Process, connection: JsonRpcConnection, options: StdioOptions
    ) -> None:
        self.process = proc
        self.connection = connection
        self._options = options
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self._stderr_task: asyncio.Task[None] | None = None
        self._closed = False
        if proc.stderr is not None:
            self._stderr_task = asyncio.get_running_loop().create_task(
                self._drain(proc.stderr), name=f"stderr-{options.name}"
            )

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    async def wait_ended(self) -> None:
        """Return when the connection ends or the process exits, whichever comes first."""
        waiters = {
            asyncio.ensure_future(self.connection.wait_closed()),
            asyncio.ensure_future(self._exited()),
        }
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
            await asyncio.gather(*waiters, return_exceptions=True)

    async def _exited(self) -> None:
        # Not ``process.wait()``: on Python 3.11 it also waits for every pipe to close, and
        # a wrapper's orphaned child (node under basedpyright-langserver) keeps them open.
        while self.process.returncode is None:  # noqa: ASYNC110 - no event exists for it
            await asyncio.sleep(_EXIT_POLL_S)

    def stderr_tail(self) -> str:
        """The last lines the child wrote to stderr."""
        return "\n".join(self._stderr)

    async def stderr_settled(self) -> str:
        """:meth:`stderr_tail` once stderr is read to its end (a child that just
        exited may still have its last lines in the pipe), waiting at most `_STDERR_SETTLE_S`."""
        if self._stderr_task is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._stderr_task), _STDERR_SETTLE_S)
        return self.stderr_tail()

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        with contextlib.suppress(ValueError, ConnectionError):
            while line := await stream.readline():
                self._stderr.append(line.decode("utf-8", errors="replace").rstrip())

    async def aclose(self) -> None:
        """Close the connection and stop the process (idempotent)."""
        if self._closed:
            return
        self._closed = True
        await self.connection.aclose()
        proc = self.process
        if proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if proc.returncode is not None:
                break
            if sig is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, sig)
            try:
                async with asyncio.timeout(
                    self._options.grace_s if sig != signal.SIGKILL else None
                ):
                    await proc.wait()
            except TimeoutError:
                continue
        # A wrapper (basedpyright-langserver runs node as its child) may be gone while its
        # children live on: end the whole process group it led.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        if self._stderr_task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._stderr_task
        if proc.stdout is not None:  # read to EOF so the pipe's transport closes itself
            with contextlib.suppress(TimeoutError, ValueError, ConnectionError):
                async with asyncio.timeout(self._options.grace_s):
                    while await proc.stdout.read(_STREAM_LIMIT):
                        pass
        if proc.stdin is not None:
            with contextlib.suppress(ConnectionError):
                await proc.stdin.wait_closed()


async def spawn_stdio_peer(argv: Sequence[str], options: StdioOptions) -> StdioPeer:
    """Start ``argv`` and return the peer; its connection is not reading yet.

    Register handlers on ``peer.connection``, then call ``peer.connection.start()``.
    Raises :class:`ProcessError` when the program cannot be started.
    """
    if not argv:
        raise ProcessError(f"{options.name}: cannot run an empty command")
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=options.cwd,
            env=child_environment(options.env),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            limit=_STREAM_LIMIT,
        )
    except OSError as exc:
        raise ProcessError(
            f"could not start {options.name} ({argv[0]!r}): {exc.strerror or exc}",
            hint="check that the program is installed and on PATH",
        ) from exc
    assert proc.stdin is not None
    assert proc.stdout is not None
    connection = JsonRpcConnection(
        proc.stdout,
        proc.stdin,
        name=options.name,
        default_timeout_s=options.default_timeout_s,
        cancel_method=options.cancel_method,
    )
    return StdioPeer(proc, connection, options)
