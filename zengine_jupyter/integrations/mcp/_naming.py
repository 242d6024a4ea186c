"""How MCP tools and prompts are named for the agent: ``mcp__<server>__<tool>``.

Pure functions. Every character outside ``[A-Za-z0-9_-]`` becomes ``_`` (the rule every
provider applies to tool names). A name over 64 characters, the providers' limit, keeps its
first 55 and ends in ``_`` plus 8 hex digits of a hash of the full name, so it stays unique.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "MAX_NAME_LENGTH",
    "PREFIX",
    "qualified_name",
    "qualify_tools",
    "sanitize",
    "server_prefix",
]

PREFIX = "mcp__"
MAX_NAME_LENGTH = 64
_OTHER = re.compile(r"[^A-Za-z0-9_-]")
_HASH_LEN = 8


def sanitize(part: str) -> str:
    """``part`` with every character outside ``[A-Za-z0-9_-]`` replaced by ``_``."""
    return _OTHER.sub("_", part)


def server_prefix(server: str) -> str:
    """``mcp__<server>__``: every tool of the server starts with it (a rule's prefix)."""
    return f"{PREFIX}{sanitize(server)}__"


def qualified_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>``, sanitised, at most 64 characters."""
    name = server_prefix(server) + sanitize(tool)
    if len(name) <= MAX_NAME_LENGTH:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:_HASH_LEN]
    return f"{name[: MAX_NAME_LENGTH - _HASH_LEN - 1]}_{digest}"


def qualify_tools(
    server: str, tools: Iterable[str], disabled: Iterable[str] = ()
) -> dict[str, str]:
    """Qualified name -> the server's own tool name, minus ``disabled``, in the server's order.

    A disabled entry matches a tool by its own name or by its sanitised form. Two tools
    whose names sanitise alike (``a.b`` and ``a_b``) both stay: the later one gets ``_2``,
    ``_3``, ... so no tool is silently shadowed.
    """
    off = set(disabled)
    out: dict[str, str] = {}
    for tool in tools:
        if tool in off or sanitize(tool) in off:
            continue
        name = qualified_name(server, tool)
        if name in out:
            n = 2
            while (candidate := _suffixed(name, n)) in out:
                n += 1
            name = candidate
        out[name] = tool
    return out


def _suffixed(name: str, n: int) -> str:
    suffix = f"_{n}"
    return name[: MAX_NAME_LENGTH - len(suffix)] + suffix
