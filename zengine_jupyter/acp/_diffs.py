"""The engine's unified diffs as ACP diff content (``{"type": "diff", path, oldText, newText}``).

The engine keeps an edit as a unified diff (``@@`` hunks with context), never the whole file, so
each hunk becomes one diff entry: ``oldText`` is the hunk's context and removed lines,
``newText`` its context and added lines. A client shows their difference, which is the edit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["HunkText", "hunks_of"]

_HUNK = re.compile(r"^@@ -\d+(?:,(?P<old>\d+))? \+\d+(?:,(?P<new>\d+))? @@")


@dataclass(frozen=True)
class HunkText:
    path: str
    old: str
    new: str


def _path(header: str) -> str | None:
    name = header[4:].rstrip("\n").split("\t")[0].strip()
    if name == "/dev/null":
        return None
    return name[2:] if name.startswith(("a/", "b/")) else name


def hunks_of(diff: str, fallback_path: str = "") -> list[HunkText]:
    """Every hunk of a (multi-file) unified diff; a new file's hunk has ``old`` empty.

    Hunk bodies are read by the line counts in their ``@@`` header, so a removed line that
    starts with ``-- `` is never taken for a file header."""
    out: list[HunkText] = []
    path = fallback_path
    lines = diff.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith(("--- ", "+++ ")):
            path = _path(line) or path
            continue
        m = _HUNK.match(line)
        if m is None:
            continue
        left = int(m["old"] or 1)
        right = int(m["new"] or 1)
        old: list[str] = []
        new: list[str] = []
        while i < len(lines) and (left > 0 or right > 0):
            body = lines[i]
            i += 1
            if body.startswith("\\"):
                continue  # "\ No newline at end of file"
            sign, text = body[:1], body[1:]
            if sign == "-":
                old.append(text)
                left -= 1
            elif sign == "+":
                new.append(text)
                right -= 1
            else:  # context: " line", or a bare newline some tools write for an empty one
                text = text if sign == " " else body
                old.append(text)
                new.append(text)
                left -= 1
                right -= 1
        out.append(HunkText(path, "".join(old), "".join(new)))
    return out
