"""LSP result JSON -> the tool's result values (they read files: call from a thread)."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any

from zengine_jupyter.integrations.lsp._results import (
    DiagnosticItem,
    EditItem,
    Severity,
    SourceLocation,
)
from zengine_jupyter.integrations.lsp._text import (
    chars_to_utf16,
    display_path,
    read_text,
    uri_to_path,
    utf16_to_chars,
)

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

__all__ = [
    "SYMBOL_KINDS",
    "LineCache",
    "call_locations",
    "diagnostic_items",
    "edit_items",
    "hover_text",
    "locations",
    "rename_preview_text",
    "symbol_locations",
]

SYMBOL_KINDS = {
    1: "file", 2: "module", 3: "namespace", 4: "package", 5: "class", 6: "method",
    7: "property", 8: "field", 9: "constructor", 10: "enum", 11: "interface", 12: "function",
    13: "variable", 14: "constant", 15: "string", 16: "number", 17: "boolean", 18: "array",
    19: "object", 20: "key", 21: "null", 22: "enum member", 23: "struct", 24: "event",
    25: "operator", 26: "type parameter",
}  # fmt: skip
_SEVERITIES: dict[int, Severity] = {1: "error", 2: "warning", 3: "information", 4: "hint"}


class LineCache:
    """Lines of files on disk, read once per answer."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._texts: dict[Path, str] = {}

    def text(self, path: Path) -> str:
        if path not in self._texts:
            try:
                self._texts[path] = read_text(path)
            except OSError:
                self._texts[path] = ""
        return self._texts[path]

    def line(self, path: Path, line0: int) -> str:
        lines = self.text(path).splitlines()
        return lines[line0] if 0 <= line0 < len(lines) else ""

    def to_lsp(self, path: Path, line: int, column: int) -> dict[str, int]:
        """1-based character position -> LSP position."""
        return {
            "line": line - 1,
            "character": chars_to_utf16(self.line(path, line - 1), column - 1),
        }

    def location(
        self, uri: str, position: Any, label: str | None = None, depth: int = 0
    ) -> SourceLocation:
        path = uri_to_path(uri)
        line0 = int(position.get("line", 0)) if isinstance(position, dict) else 0
        units = int(position.get("character", 0)) if isinstance(position, dict) else 0
        text = self.line(path, line0)
        return SourceLocation(
            display_path(path, self.root),
            line0 + 1,
            utf16_to_chars(text, units) + 1,
            text,
            label,
            depth,
        )


def _start(range_: Any) -> Any:
    return range_.get("start") if isinstance(range_, dict) else None


def locations(result: Any, cache: LineCache) -> list[SourceLocation]:
    """``Location | Location[] | LocationLink[] | null``."""
    items = result if isinstance(result, list) else [result] if isinstance(result, dict) else []
    out: list[SourceLocation] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        if "targetUri" in item:
            range_ = item.get("targetSelectionRange") or item.get("targetRange")
            out.append(cache.location(item["targetUri"], _start(range_)))
        elif isinstance(item.get("uri"), str):
            out.append(cache.location(item["uri"], _start(item.get("range"))))
    return sorted(set(out), key=lambda loc: (loc.path, loc.line, loc.column))


def _kind(item: dict[str, Any]) -> str:
    return SYMBOL_KINDS.get(int(item.get("kind", 0) or 0), "symbol")


def symbol_locations(result: Any, uri: str | None, cache: LineCache) -> list[SourceLocation]:
    """``DocumentSymbol[]`` (nested, ``uri`` is the file) or ``SymbolInformation[]`` /
    ``WorkspaceSymbol[]`` (flat, each with its location)."""
    out: list[SourceLocation] = []

    def walk(items: Iterable[Any], depth: int) -> None:
        for item in items:
            if not isinstance(item, dict):
                continue
            label = f"{_kind(item)} {item.get('name', '?')}"
            container = item.get("containerName")
            if container and "location" in item:
                label += f" (in {container})"
            if "location" in item and isinstance(item["location"], dict):
                loc = item["location"]
                out.append(cache.location(str(loc.get("uri", "")), _start(loc.get("range")), label))
            elif uri is not None:
                range_ = item.get("selectionRange") or item.get("range")
                out.append(cache.location(uri, _start(range_), label, depth))
            children = item.get("children")
            if isinstance(children, list):
                walk(children, depth + 1)

    walk(result if isinstance(result, list) else [], 0)
    return out


def call_locations(result: Any, direction: str, cache: LineCache) -> list[SourceLocation]:
    """Incoming calls: each caller at its call site. Outgoing: each callee at its definition."""
    out: list[SourceLocation] = []
    for call in result if isinstance(result, list) else []:
        item = (
            call.get("from" if direction == "incoming" else "to")
            if isinstance(call, dict)
            else None
        )
        if not isinstance(item, dict):
            continue
        label = f"{_kind(item)} {item.get('name', '?')}"
        ranges = call.get("fromRanges") or []
        if direction == "incoming" and ranges:
            for range_ in ranges:
                out.append(cache.location(str(item.get("uri", "")), _start(range_), label))
        else:
            range_ = item.get("selectionRange") or item.get("range")
            out.append(cache.location(str(item.get("uri", "")), _start(range_), label))
    return out


def hover_text(result: Any) -> str | None:
    """``Hover.contents`` (MarkupContent, MarkedString or a list of them) as plain text."""
    if not isinstance(result, dict):
        return None
    contents = result.get("contents")
    parts: list[str] = []
    for item in contents if isinstance(contents, list) else [contents]:
        if isinstance(item, str):
            parts.append(item)
        elif isinstance(item, dict) and isinstance(item.get("value"), str):
            value = item["value"]
            language = item.get("language")
            parts.append(f"```{language}\n{value}\n```" if language else value)
    text = "\n\n".join(p.strip() for p in parts if p.strip())
    return text or None


def diagnostic_items(
    raw: Iterable[dict[str, Any]], path: Path, cache: LineCache
) -> list[DiagnosticItem]:
    """Diagnostics of one file, errors first, then by position."""
    out: list[DiagnosticItem] = []
    for diag in raw:
        loc = cache.location(path.as_uri(), _start(diag.get("range")))
        code = diag.get("code")
        out.append(
            DiagnosticItem(
                loc.path,
                loc.line,
                loc.column,
                _SEVERITIES.get(int(diag.get("severity", 1) or 1), "error"),
                str(diag.get("message", "")),
                str(code) if code is not None else None,
                str(diag["source"]) if diag.get("source") else None,
            )
        )
    order = {"error": 0, "warning": 1, "information": 2, "hint": 3}
    return sorted(out, key=lambda d: (order[d.severity], d.line, d.column))


def edit_items(workspace_edit: Any, cache: LineCache) -> list[tuple[Path, dict[str, Any]]]:
    """Every TextEdit of a ``WorkspaceEdit`` (``changes`` or ``documentChanges``) with its file."""
    pairs: list[tuple[Path, dict[str, Any]]] = []
    if not isinstance(workspace_edit, dict):
        return pairs
    changes = workspace_edit.get("changes")
    if isinstance(changes, dict):
        for uri, edits in changes.items():
            pairs.extend((uri_to_path(uri), e) for e in edits if isinstance(e, dict))
    for change in workspace_edit.get("documentChanges") or []:
        if isinstance(change, dict) and isinstance(change.get("textDocument"), dict):
            path = uri_to_path(str(change["textDocument"].get("uri", "")))
            pairs.extend((path, e) for e in change.get("edits", []) if isinstance(e, dict))
    return pairs


def _offset(text: str, position: dict[str, Any]) -> int:
    lines = text.splitlines(keepends=True)
    line0 = int(position.get("line", 0))
    if line0 >= len(lines):
        return len(text)
    line = lines[line0]
    return sum(len(x) for x in lines[:line0]) + utf16_to_chars(
        line.rstrip("\r\n"), int(position.get("character", 0))
    )


def rename_preview_text(
    pairs: list[tuple[Path, dict[str, Any]]], cache: LineCache, max_lines: int = 200
) -> tuple[list[EditItem], str]:
    """The edits as values and as a unified diff per file, computed in memory only."""
    items: list[EditItem] = []
    by_file: dict[Path, list[dict[str, Any]]] = {}
    for path, edit in pairs:
        by_file.setdefault(path, []).append(edit)
        range_ = edit.get("range") or {}
        start = cache.location(path.as_uri(), range_.get("start"))
        end = cache.location(path.as_uri(), range_.get("end"))
        items.append(
            EditItem(
                start.path,
                start.line,
                start.column,
                end.line,
                end.column,
                str(edit.get("newText", "")),
            )
        )
    diff: list[str] = []
    for path, edits in sorted(by_file.items()):
        before = cache.text(path)
        after = before
        spans = [
            (
                _offset(before, e["range"]["start"]),
                _offset(before, e["range"]["end"]),
                str(e.get("newText", "")),
            )
            for e in edits
            if isinstance(e.get("range"), dict)
        ]
        for start_at, end_at, new in sorted(spans, reverse=True):
            after = after[:start_at] + new + after[end_at:]
        name = display_path(path, cache.root)
        diff.extend(
            line.rstrip("\n")
            for line in difflib.unified_diff(
                before.splitlines(keepends=True), after.splitlines(keepends=True),
                f"a/{name}", f"b/{name}", n=0,
            )
        )  # fmt: skip
    if len(diff) > max_lines:
        diff = [*diff[:max_lines], f"... {len(diff) - max_lines} more diff lines"]
    return items, "\n".join(diff)
