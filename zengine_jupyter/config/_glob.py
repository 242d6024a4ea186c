"""Path globs as permission rules and the search tools read them.

``**`` crosses folders, ``*`` and ``?`` do not (``*.py`` is ``x.py``, never ``src/x.py`` or
``/elsewhere/x.py``), ``[abc]`` and ``{a,b}`` work as in shells. Shared by the gate's path rules
(``config/_rules.py``) and Glob/Grep (``engine/tools/_listing.py``).
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["compile_glob"]


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """A regex for a path glob: ``**`` crosses folders, ``*`` and ``?`` do not,
    ``[abc]`` and ``{a,b}`` work as in shells."""
    return re.compile("(?s:" + _glob_body(pattern) + r")\Z")


def _glob_body(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and "]" in pattern[i + 1 :]:
            end = pattern.index("]", i + 1)
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end
        elif char == "{" and "}" in pattern[i + 1 :]:
            end = pattern.index("}", i + 1)
            options = pattern[i + 1 : end].split(",")
            out.append("(?:" + "|".join(_glob_body(o) for o in options) + ")")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)
