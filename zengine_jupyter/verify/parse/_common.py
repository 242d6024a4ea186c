"""Helpers shared by the count parsers."""

from __future__ import annotations

import re

__all__ = ["ANSI", "number", "plain"]

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def plain(output: str) -> str:
    """The output without terminal colour codes and carriage-return redraws."""
    return ANSI.sub("", output).replace("\r\n", "\n").replace("\r", "\n")


def number(pattern: re.Pattern[str], text: str) -> int | None:
    """The integer group 1 of ``pattern``'s first match in ``text``, or None."""
    m = pattern.search(text)
    return int(m.group(1)) if m else None
