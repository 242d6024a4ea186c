"""What the LSP tool returns: small values that render to the text the model reads
(``path:line:col`` plus the source line). Lines and columns here are 1-based characters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "DiagnosticItem",
    "EditItem",
    "LspAnswer",
    "LspOperation",
    "LspQuery",
    "Severity",
    "SourceLocation",
]

LspOperation = Literal[
    "definition",
    "references",
    "hover",
    "implementation",
    "incoming_calls",
    "outgoing_calls",
    "document_symbols",
    "workspace_symbols",
    "diagnostics",
    "rename_preview",
]
Severity = Literal["error", "warning", "information", "hint"]


@dataclass(frozen=True)
class LspQuery:
    """One question of the LSP tool. ``line`` and ``column`` are 1-based (characters)."""

    operation: LspOperation
    path: str
    """The file asked about (for ``workspace_symbols``: any file of that language)."""
    line: int = 1
    column: int = 1
    query: str = ""
    """``workspace_symbols``: the name (or part of it) to look for."""
    new_name: str = ""
    """``rename_preview``: the new name."""


@dataclass(frozen=True)
class SourceLocation:
    """A place in a file, with the text of its line; ``label`` names what is there
    (a symbol's kind and name, a caller) when the operation has one."""

    path: str
    """Relative to the project root when inside it."""
    line: int
    column: int
    text: str
    label: str | None = None
    depth: int = 0
    """Nesting level (document symbols)."""

    def render(self) -> str:
        where = f"{self.path}:{self.line}:{self.column}"
        indent = "  " * self.depth
        if self.label:
            return f"{indent}{self.label}  {where}: {self.text.strip()}"
        return f"{indent}{where}: {self.text.strip()}"


@dataclass(frozen=True)
class DiagnosticItem:
    """One diagnostic, flattened to a line."""

    path: str
    line: int
    column: int
    severity: Severity
    message: str
    code: str | None = None
    source: str | None = None

    def render(self) -> str:
        message = " ".join(part.strip() for part in self.message.splitlines() if part.strip())
        if len(message) > 300:
            message = message[:297] + "..."
        code = f" [{self.code}]" if self.code else ""
        return f"{self.path}:{self.line}:{self.column}: {self.severity}: {message}{code}"


@dataclass(frozen=True)
class EditItem:
    """One text edit a rename would make (shown, never applied)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    new_text: str


@dataclass(frozen=True)
class LspAnswer:
    """The result of one :class:`LspQuery`. ``text`` is what the model reads; the typed
    fields carry the same facts for tests and frontends."""

    operation: LspOperation
    ok: bool
    text: str
    server: str | None = None
    locations: tuple[SourceLocation, ...] = ()
    diagnostics: tuple[DiagnosticItem, ...] = ()
    edits: tuple[EditItem, ...] = ()
    hover: str | None = None
    notes: tuple[str, ...] = field(default=())
