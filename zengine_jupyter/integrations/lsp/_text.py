"""Files, URIs and positions: LSP counts UTF-16 code units from 0, the model counts
characters from 1."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

__all__ = [
    "chars_to_utf16",
    "display_path",
    "line_of",
    "path_to_uri",
    "read_text",
    "uri_to_path",
    "utf16_to_chars",
]


def path_to_uri(path: Path) -> str:
    return path.resolve().as_uri()


def uri_to_path(uri: str) -> Path:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return Path(uri)
    return Path(unquote(parsed.path))


def read_text(path: Path) -> str:
    """The file as the server should see it (invalid UTF-8 replaced, newlines kept)."""
    with path.open(encoding="utf-8", errors="replace", newline="") as handle:
        return handle.read()


def line_of(text: str, line: int) -> str:
    """Line ``line`` (0-based) of ``text`` without its line break ('' past the end)."""
    lines = text.splitlines()
    return lines[line] if 0 <= line < len(lines) else ""


def chars_to_utf16(line_text: str, chars: int) -> int:
    """Character offset -> UTF-16 code units (clamped to the line's end)."""
    prefix = line_text[: max(chars, 0)]
    return len(prefix.encode("utf-16-le")) // 2


def utf16_to_chars(line_text: str, units: int) -> int:
    """UTF-16 code units -> character offset (clamped to the line's end)."""
    count = 0
    for index, char in enumerate(line_text):
        if count >= units:
            return index
        count += 2 if ord(char) > 0xFFFF else 1
    return len(line_text)


def display_path(path: Path, root: Path) -> str:
    """``path`` relative to the project root when inside it, else absolute."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)
