"""Text UTF-8 cannot encode: lone surrogates (U+D800..U+DFFF), made visible.

A model's JSON may carry one as an escape (``"\\ud800"``), which Python decodes into a ``str``
that cannot be encoded; a file name that is not UTF-8 arrives as ``\\udcXX`` (surrogateescape).
Where the engine takes such text in (a model's answer, a tool's output) it shows it as the six
characters ``\\ud800``: kept and visible, never dropped, and safe for every frontend and for
the next request. (The log keeps any that still reach it as JSON escapes: see ``store``.)
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["escape_surrogates", "escape_surrogates_in", "find_surrogate"]

_LONE = re.compile("[\ud800-\udfff]")


def _visible(match: re.Match[str]) -> str:
    return f"\\u{ord(match[0]):04x}"


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as ``\\udXXX`` (the same object if none)."""
    if text.isascii() or _LONE.search(text) is None:
        return text
    return _LONE.sub(_visible, text)


def escape_surrogates_in(value: Any) -> Any:
    """``value`` (JSON-like: dicts, lists, strings) with every string escaped, keys too."""
    if isinstance(value, str):
        return escape_surrogates(value)
    if isinstance(value, dict):
        return {escape_surrogates_in(k): escape_surrogates_in(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [escape_surrogates_in(item) for item in value]
    return value


def find_surrogate(value: Any, where: str = "") -> tuple[str, str] | None:
    """The first lone surrogate in a JSON-like ``value``: ``(key path, "\\udXXX")``, or None."""
    if isinstance(value, str):
        if value.isascii():
            return None
        found = _LONE.search(value)
        return (where or "the text", _visible(found)) if found is not None else None
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            if (hit := find_surrogate(str(key), path)) or (hit := find_surrogate(item, path)):
                return hit
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            if (hit := find_surrogate(item, f"{where}[{index}]")) is not None:
                return hit
    return None
