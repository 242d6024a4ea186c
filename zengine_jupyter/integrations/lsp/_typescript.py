"""Which TypeScript a project uses, and so which TypeScript language server serves it.

TypeScript 7 (the native compiler) has no ``tsserver``: typescript-language-server cannot
start on it ("Could not find a valid TypeScript installation"), and ``npm install typescript``
gives 7 today. TypeScript 7's ``tsc`` is its own language server (``tsc --lsp --stdio``). So
the ``tsc`` the project resolves decides: version 7 or later serves through ``tsc --lsp``,
anything older (or a ``tsc`` whose version cannot be read) through typescript-language-server.

The resolved ``tsc``: the project's own ``node_modules/.bin/tsc`` (a trusted project only:
it is the project's code), else the first ``tsc`` on the search path (in an untrusted project
never one inside it). Its version comes from the ``typescript`` package's ``package.json``
beside the program's real location: nothing is run to find it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["NATIVE_MAJOR", "TypeScriptFound", "find_typescript", "typescript_version"]

NATIVE_MAJOR = 7
"""The first TypeScript whose ``tsc`` is its own language server (and has no tsserver)."""


@dataclass(frozen=True)
class TypeScriptFound:
    """The ``tsc`` a project resolves and its version (``None``: unreadable)."""

    tsc: str
    version: str | None

    @property
    def major(self) -> int | None:
        head = (self.version or "").split(".", 1)[0]
        return int(head) if head.isdigit() else None

    @property
    def native(self) -> bool:
        """TypeScript 7 or later: ``tsc --lsp`` serves, typescript-language-server cannot."""
        major = self.major
        return major is not None and major >= NATIVE_MAJOR

    @property
    def label(self) -> str:
        """``TypeScript 7.0.2`` (what ``/lsp`` names)."""
        return f"TypeScript {self.version or '(version unknown)'}"


def find_typescript(
    root: Path | None,
    search_path: str,
    *,
    trusted: bool,
    which: Callable[[str, str], str | None],
) -> TypeScriptFound | None:
    """The ``tsc`` the project ``root`` resolves (see the module docstring; no root: the
    search path's); a few ``stat`` calls and one small file read."""
    candidates: list[str] = []
    local = root / "node_modules" / ".bin" / "tsc" if root is not None else None
    if trusted and local is not None and os.access(local, os.X_OK):
        candidates.append(str(local))
    on_path = which("tsc", search_path)
    if on_path is not None:
        candidates.append(on_path)
    for tsc in candidates:
        inside = root is not None and Path(tsc).resolve().is_relative_to(root.resolve())
        if inside and not trusted:
            continue  # the project's own program: not run before the folder is trusted
        return TypeScriptFound(tsc, typescript_version(Path(tsc)))
    return None


def typescript_version(tsc: Path) -> str | None:
    """The version in the ``typescript`` package holding ``tsc``'s real file (``bin/tsc``)."""
    real = tsc.resolve()
    for folder in list(real.parents)[:3]:
        try:
            package = json.loads((folder / "package.json").read_text("utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(package, dict) and package.get("name") == "typescript":
            version = package.get("version")
            return version if isinstance(version, str) and version else None
    return None
