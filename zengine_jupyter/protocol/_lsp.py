"""What ``/lsp`` shows: the state of each language server a session knows about."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from zengine_jupyter.protocol._data_model import DataModel

__all__ = ["LspServerState", "LspServerStatus"]

LspServerState = Literal[
    "not_started", "starting", "indexing", "ready", "crashed", "not_installed", "failed", "stopped"
]
"""``not_started``: nothing asked yet (nothing starts up front); ``starting``: the process is
up and ``initialize`` is in flight; ``indexing``: running with a work-done progress token
open; ``ready``: running and idle; ``not_installed``: its program is not on PATH (remembered);
``failed``: it would not start, or crashed more often than it may be restarted (remembered);
``stopped``: shut down with the session."""


class LspServerStatus(DataModel):
    """One language server, as the ``/lsp`` view lists it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    state: LspServerState
    command: list[str]
    """The program and its arguments."""
    file_types: list[str]
    """File extensions it serves (``.py``, ``.ts``, ...)."""
    builtin: bool
    """A built-in spec (``False``: an ``[lsp.servers]`` entry)."""
    restarts: int = 0
    """How often it was restarted after a crash (at most ``MAX_RESTARTS``)."""
    open_documents: int = 0
    pid: int | None = None
    detail: str | None = None
    """Why it is not running, or what it is doing (the last progress title)."""
    install: str | None = None
    """The command that installs it; shown when it is not installed."""
    version: str | None = None
    """What it runs on, when that decides how it starts (``TypeScript 7.0.2`` for the two
    TypeScript servers: 7 or later is served by ``tsc --lsp``, older by
    typescript-language-server)."""
