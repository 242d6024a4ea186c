"""``%%agent --project DIR``: which folder a chat works on, when it is not the notebook's."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zengine_jupyter.engine import Session
    from zengine_jupyter.kernel._controller import TurnRequest

__all__ = ["project_of", "same_root", "with_project"]


def with_project(request: TurnRequest, folder: str | None) -> TurnRequest:
    """``request`` with ``--project`` set (kept apart from the magic's other options)."""
    return replace(request, project=folder) if folder else request


def project_of(folder: str | None) -> Path | None:
    """``DIR`` as an absolute folder (relative: to the kernel's working directory)."""
    return Path(folder).expanduser().resolve() if folder else None


def same_root(folder: str | None, session: Session) -> bool:
    """Whether a chat on ``session`` may take a request for ``folder`` (None: any)."""
    wanted = project_of(folder)
    return wanted is None or wanted == session.root
