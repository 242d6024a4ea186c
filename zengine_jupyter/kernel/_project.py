"""``%%agent --project DIR``: which folder a chat works on, when it is not the notebook's."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zengine_jupyter.engine import Session

__all__ = ["project_of", "same_root"]


def project_of(folder: str | None) -> Path | None:
    """``DIR`` as an absolute folder (relative: to the kernel's working directory)."""
    return Path(folder).expanduser().resolve() if folder else None


def same_root(folder: str | None, session: Session) -> bool:
    """Whether a chat on ``session`` may take a request for ``folder`` (None: any)."""
    wanted = project_of(folder)
    return wanted is None or wanted == session.root
