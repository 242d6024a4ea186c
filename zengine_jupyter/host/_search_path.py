"""Where zengine looks programs up: ``PATH`` without its relative entries.

An empty entry (``PATH=/usr/bin::/bin``, a trailing ``:``), ``.`` or ``.venv/bin`` names a folder
relative to the working folder, and zengine works in the project: a cloned project's own
``git``, ``rg``, ``bwrap`` or ``.venv/bin/python`` would run in place of the system's, with no
one asked. So every lookup of a bare program name (``which``) and every child's ``PATH``
(``host.child_environment``, the MCP servers' environment) keeps the absolute entries only.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["search_path", "which"]


def search_path(value: str | None = None) -> str:
    """``value`` (default: this process's ``PATH``, else ``os.defpath``) with every entry that
    is not an absolute folder dropped, order kept."""
    raw = os.environ.get("PATH", os.defpath) if value is None else value
    return os.pathsep.join(entry for entry in raw.split(os.pathsep) if Path(entry).is_absolute())


def which(program: str, path: str | None = None) -> str | None:
    """:func:`shutil.which` over :func:`search_path` (``path``: a ``PATH``-style list to use
    instead of this process's). A name with a slash is taken as given, as ``shutil`` does."""
    return shutil.which(program, path=search_path(path))
