"""A tool call that raised: the error result the model reads, and the traceback kept for us.

``run_call`` turns whatever a tool, its paths or the gate raise into that call's error result,
so the model can correct itself and the chat goes on (a bug in one tool never ends a turn).
An ``OSError`` names the path and the system's reason; a ``ValueError`` (a NUL in a path, text
that is not Unicode) is a bad argument; anything else is an internal error whose traceback is
appended to ``<data folder>/logs/tools.log``.
"""

from __future__ import annotations

import asyncio
import traceback
from datetime import UTC, datetime
from pathlib import Path

from zengine_jupyter.config import data_dir, open_private, private_dir
from zengine_jupyter.protocol import escape_surrogates

__all__ = ["TOOLS_LOG", "describe_failure", "log_failure"]

TOOLS_LOG = Path("logs") / "tools.log"
"""Under the data folder: tracebacks of tool calls that failed unexpectedly."""

_MAX_SHOWN = 200


def _shown(text: str, root: Path) -> str:
    text = escape_surrogates(text.replace("\x00", "\\0"))
    if text.startswith(f"{root}/"):
        text = text[len(str(root)) + 1 :]
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def describe_failure(tool: str, exc: Exception, root: Path, logged: Path | None) -> str:
    """The error result for ``tool`` having raised ``exc`` (``logged``: where its traceback
    went, for an unexpected one)."""
    if isinstance(exc, OSError):
        reason = exc.strerror or str(exc) or type(exc).__name__
        where = f": {_shown(str(exc.filename), root)}" if exc.filename is not None else ""
        return f"{tool} failed: {reason}{where}. Check the path and its folders, then try again."
    message = _shown(str(exc), root)
    if isinstance(exc, ValueError):  # UnicodeError included
        if "null" in message and ("byte" in message or "character" in message):
            message += " (a path or argument cannot contain a NUL character)"
        return f"{tool} could not use its arguments: {message}. Correct them and try again."
    where = f"; the details are in {logged}" if logged is not None else ""
    return (
        f"{tool} failed with an internal error ({type(exc).__name__}: {message}){where}. "
        "Try another way, or tell the user."
    )


def _append(path: Path, text: str) -> None:
    private_dir(path.parent)
    with open_private(path, "ab") as log:
        log.write(text.encode("utf-8", "backslashreplace"))


async def log_failure(session_id: str, tool: str, exc: Exception) -> Path | None:
    """Append ``exc``'s traceback to the tools log (off the event loop); None if that failed."""
    path = data_dir() / TOOLS_LOG
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    lines = traceback.format_exception(exc)
    text = f"--- {stamp} chat {session_id} tool {tool}\n{''.join(lines)}"
    try:
        await asyncio.to_thread(_append, path, text)
    except OSError:
        return None
    return path
