"""From a file to the language server that serves it."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zengine_jupyter.host import which as host_which
from zengine_jupyter.integrations.lsp._spec import BUILTIN_SPECS, LspServerEntry, spec_from_entry
from zengine_jupyter.integrations.lsp._typescript import NATIVE_MAJOR, find_typescript

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from zengine_jupyter.integrations.lsp._spec import LspServerSpec
    from zengine_jupyter.integrations.lsp._typescript import TypeScriptFound

__all__ = ["LspRouter", "Route", "default_search_path"]


def default_search_path() -> str:
    """PATH plus the folder of the running Python (a kernel's venv is often not on PATH)."""
    here = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "")
    return f"{path}{os.pathsep}{here}" if path else here


@dataclass(frozen=True)
class Route:
    """The server chosen for a file: ``program`` is its resolved path, or ``None`` when no
    candidate is installed (then ``spec`` is the preferred one, whose install command to show)."""

    spec: LspServerSpec
    program: str | None


class LspRouter:
    """User entries first (they win over built-ins for their file types), then built-ins in
    order of preference; the first whose program is installed serves the file. The two
    TypeScript servers are decided by the project's ``tsc`` (``root``; ``trusted`` says
    whether the project's own ``node_modules`` may be used): see ``_typescript.py``."""

    def __init__(
        self,
        entries: Sequence[LspServerEntry] = (),
        *,
        builtins: Sequence[LspServerSpec] = BUILTIN_SPECS,
        search_path: str | None = None,
        which: Callable[[str, str], str | None] | None = None,
        root: Path | None = None,
        trusted: bool = True,
    ) -> None:
        self.specs: tuple[LspServerSpec, ...] = (
            *(spec_from_entry(e) for e in entries),
            *builtins,
        )
        self._search_path = search_path if search_path is not None else default_search_path()
        self._which = which or host_which
        self._root = root
        self._trusted = trusted
        self._typescript: tuple[TypeScriptFound | None] | None = None

    def typescript(self) -> TypeScriptFound | None:
        """The ``tsc`` the project resolves (looked up once)."""
        if self._typescript is None:
            found = find_typescript(
                self._root, self._search_path, trusted=self._trusted, which=self._which
            )
            self._typescript = (found,)
        return self._typescript[0]

    def skipped(self, spec: LspServerSpec) -> str | None:
        """Why a TypeScript server is not used with the TypeScript found (``None``: usable)."""
        if spec.typescript is None or (found := self.typescript()) is None:
            return None
        if spec.typescript == "native" and not found.native:
            return f"not used: {found.label} is older than {NATIVE_MAJOR} (no tsc --lsp)"
        if spec.typescript == "tsserver" and found.native:
            return f"not used: {found.label} has no tsserver; tsc --lsp serves these files"
        return None

    def candidates(self, path: Path | str) -> list[LspServerSpec]:
        """Every spec serving ``path``'s extension, best first."""
        ext = Path(path).suffix.lower()
        return [s for s in self.specs if ext and ext in s.file_types]

    def locate(self, spec: LspServerSpec) -> str | None:
        """The resolved program of ``spec``, or ``None`` when it is not installed (or is a
        TypeScript server the TypeScript found cannot use)."""
        if spec.typescript is not None and self.skipped(spec) is not None:
            return None
        if spec.typescript == "native":
            found = self.typescript()
            return found.tsc if found is not None else None
        if os.sep in spec.command:
            return spec.command if os.access(spec.command, os.X_OK) else None
        return self._which(spec.command, self._search_path)

    def route(self, path: Path | str) -> Route | None:
        """The server for ``path``; ``None`` when no server serves that file type."""
        candidates = self.candidates(path)
        if not candidates:
            return None
        for spec in candidates:
            program = self.locate(spec)
            if program is not None:
                return Route(spec, program)
        usable = [spec for spec in candidates if self.skipped(spec) is None]
        return Route((usable or candidates)[0], None)
