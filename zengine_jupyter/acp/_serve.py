"""``serve_stdio``: run the agent on this process's stdin/stdout until the client hangs up.

Stdout carries the protocol and nothing else: the real stdout is kept for the connection and
file descriptor 1 (and ``sys.stdout``) are pointed at stderr before anything else runs, so a
stray ``print``, a library's warning or a child process that inherits fd 1 cannot corrupt the
JSON-RPC stream. Logs go to stderr and to ``<data>/logs/acp.log``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from typing import TYPE_CHECKING, cast

from acp import run_agent

from zengine_jupyter.acp._agent import ZengineAgent
from zengine_jupyter.config import data_dir, open_private, private_dir

if TYPE_CHECKING:
    from typing import TextIO

    from acp import Agent

__all__ = ["serve_stdio"]

_LINE_LIMIT = 64 * 1024 * 1024
"""The longest JSON-RPC line accepted (a prompt with embedded files can be large)."""


def _protocol_stdout() -> TextIO:
    """The real stdout, for the protocol alone; fd 1 and ``sys.stdout`` now write to stderr."""
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out  # type: ignore[return-value]


def _logging() -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    folder = data_dir() / "logs"
    with contextlib.suppress(OSError):
        private_dir(folder)
        open_private(folder / "acp.log", "ab").close()  # the handler appends; the file stays 0600
        handlers.append(logging.FileHandler(folder / "acp.log", encoding="utf-8"))
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    for handler in handlers:
        handler.setFormatter(fmt)
        handler.setLevel(logging.INFO)
    for name in ("zengine", "acp"):  # ours and the SDK's (a handler that failed, a bad line)
        logger = logging.getLogger(name)
        logger.setLevel(logging.INFO)
        for handler in handlers:
            logger.addHandler(handler)


async def _streams(out: TextIO) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.streams.FlowControlMixin(), out
    )
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


async def serve_stdio(agent: ZengineAgent | None = None) -> None:
    """Serve ``agent`` (a fresh one by default) on stdio; close its chats on the way out."""
    out = _protocol_stdout()
    _logging()
    agent = agent or ZengineAgent()
    reader, writer = await _streams(out)
    main = asyncio.current_task()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, ValueError, RuntimeError):
            loop.add_signal_handler(sig, main.cancel if main else lambda: None)
    try:
        await run_agent(cast("Agent", agent), writer, reader)
    except asyncio.CancelledError:
        if main is not None:
            main.uncancel()
    finally:
        await agent.aclose()
