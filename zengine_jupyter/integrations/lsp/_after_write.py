"""Errors after a write: what the engine appends to the result of Edit / Write.

Only a server that is already running and has analysed the file before is waited on, for at
most ``WAIT`` seconds. A server still starting or indexing adds nothing (the call returns at
once), and one not running yet is started in the background for later writes, so edit-heavy
work never stalls. Errors only (warnings are left out), at most ``MAX_ERROR_LINES`` per file.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from zengine_jupyter.integrations.lsp._convert import LineCache, diagnostic_items
from zengine_jupyter.integrations.lsp._text import display_path
from zengine_jupyter.protocol import JsonRpcError, LspError

if TYPE_CHECKING:
    from zengine_jupyter.integrations.lsp._manager import LspManager
    from zengine_jupyter.integrations.lsp._results import DiagnosticItem

__all__ = [
    "MAX_ERROR_LINES",
    "WAIT",
    "AfterWriteDiagnostics",
    "AfterWriteOutcome",
    "diagnostics_after_write",
]

WAIT = 2.0
"""Seconds a running server that analysed the file before is waited on after a write."""
MAX_ERROR_LINES = 20
"""Error lines appended per file."""

AfterWriteOutcome = Literal[
    "reported", "no_server", "unavailable", "started", "starting", "indexing", "first_analysis",
    "timed_out", "gone",
]  # fmt: skip
"""``reported``: fresh diagnostics arrived (``errors`` may be empty: the file is clean);
``no_server``: no server serves this file type; ``unavailable``: not installed or failed;
``started``: it was not running and now starts in the background; ``starting`` / ``indexing``:
busy, not waited on; ``first_analysis``: running but had not analysed this file, so it was
opened for the next write; ``timed_out``: nothing within ``WAIT``; ``gone``: it died meanwhile."""


@dataclass(frozen=True)
class AfterWriteDiagnostics:
    """What a write's result gets: ``text()`` is empty unless there are errors to show."""

    path: str
    outcome: AfterWriteOutcome
    server: str | None = None
    errors: tuple[DiagnosticItem, ...] = ()
    """At most ``MAX_ERROR_LINES`` errors."""
    total_errors: int = 0
    waited_s: float = 0.0

    def text(self) -> str:
        if not self.errors:
            return ""
        lines = [f"{self.server} reports {self.total_errors} error(s) in {self.path}:"]
        lines += [e.render() for e in self.errors]
        if self.total_errors > len(self.errors):
            lines.append(f"... and {self.total_errors - len(self.errors)} more error(s)")
        return "\n".join(lines)


async def diagnostics_after_write(
    manager: LspManager, path: Path | str, *, wait_s: float = WAIT
) -> AfterWriteDiagnostics:
    """Fresh errors in ``path`` after the agent wrote it (see the module docstring).

    Never raises for a server problem: the write itself succeeded, so the outcome says why
    nothing was added.
    """
    target = Path(path)
    target = (target if target.is_absolute() else manager.root / target).resolve()
    shown = display_path(target, manager.root)
    state = manager.server_state(target)
    if state is None:
        return AfterWriteDiagnostics(shown, "no_server")
    if state in ("not_installed", "failed"):
        return AfterWriteDiagnostics(shown, "unavailable")
    if state == "not_started":
        manager.start_in_background(target)
        return AfterWriteDiagnostics(shown, "started")
    client = manager.running_client(target)
    if client is None or state in ("starting", "crashed"):
        return AfterWriteDiagnostics(shown, "starting")
    name = client.spec.name
    if client.busy:
        return AfterWriteDiagnostics(shown, "indexing", name)
    started = time.monotonic()
    published = None
    try:
        # The whole exchange, not only the wait: a server that stops reading its input
        # would otherwise block the didChange write itself.
        async with asyncio.timeout(wait_s):
            if client.published(target) is None:
                await client.sync(target)  # opened now: waited on from the next write on
                client.analyse_in_background(target)
                return AfterWriteDiagnostics(shown, "first_analysis", name)
            published = await client.fresh_diagnostics(target, wait_s)
    except TimeoutError:
        published = None
    except (JsonRpcError, LspError):
        return AfterWriteDiagnostics(shown, "gone", name)
    waited = time.monotonic() - started
    if published is None:
        return AfterWriteDiagnostics(
            shown, "timed_out" if client.alive else "gone", name, waited_s=waited
        )
    cache = LineCache(manager.root)
    items = await asyncio.to_thread(diagnostic_items, published.diagnostics, target, cache)
    errors = [d for d in items if d.severity == "error"]
    return AfterWriteDiagnostics(
        shown, "reported", name, tuple(errors[:MAX_ERROR_LINES]), len(errors), waited
    )
