"""A shell command line as the simple commands it runs, for permission rules.

``git status && rm -rf build`` is two commands: an allow rule must cover each of them, a
deny or ask rule catches either. Anything this cannot take apart with certainty (command
or process substitution, loops, functions, subshells, assignments, a parse error) returns
None, and then no allow rule applies: the gate asks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["SimpleCommand", "parse", "parse_error", "split_commands"]


@dataclass(frozen=True)
class SimpleCommand:
    text: str
    """The command as written (without its redirections' operators stripped)."""
    words: tuple[str, ...]
    redirects: tuple[tuple[str, str], ...]
    """(operator, target) pairs, e.g. ``(">", "out.txt")``."""


@lru_cache(maxsize=64)
def parse(command: str) -> tuple[Any, ...]:
    """bashlex's trees for ``command`` (raises as bashlex does). One decision parses a line
    once, although the gate, the read-only list and the write analysis all look at it; the
    trees are only read, never changed.

    bashlex is imported here, at the first parse: its import builds the parser's tables (about
    half a second), which a kernel or a ``zengine`` command that never weighs a shell line
    should not pay at start-up."""
    import bashlex

    return tuple(bashlex.parse(command))


def parse_error() -> Any:
    """bashlex's ``ParsingError`` (for ``except``: only evaluated once ``parse`` has raised,
    so bashlex is imported by then)."""
    import bashlex.errors

    return bashlex.errors.ParsingError


def split_commands(command: str) -> list[SimpleCommand] | None:
    """The simple commands of ``command``, or None when it cannot be analysed safely."""
    if not command.strip():
        return None
    try:
        trees = parse(command)
    except (parse_error(), NotImplementedError, IndexError, TypeError, ValueError):
        return None
    out: list[SimpleCommand] = []
    for tree in trees:
        if not _collect(tree, command, out):
            return None
    return out or None


def _collect(node: Any, source: str, out: list[SimpleCommand]) -> bool:
    kind = node.kind
    if kind in ("list", "pipeline"):
        return all(
            _collect(part, source, out)
            for part in node.parts
            if part.kind not in ("operator", "pipe")
        )
    if kind != "command":
        return False  # compound, function, subshell, ...
    words: list[str] = []
    redirects: list[tuple[str, str]] = []
    for part in node.parts:
        if part.kind == "word":
            if getattr(part, "parts", None):
                return False  # $(...), `...`, <(...), parameter expansion
            words.append(part.word)
        elif part.kind == "redirect":
            target = part.output
            if not isinstance(target, int):
                if getattr(target, "parts", None):
                    return False
                target = target.word
            redirects.append((part.type, str(target)))
        else:
            return False  # an assignment (FOO=1 cmd) or something unexpected
    if not words:
        return False
    start, end = node.pos
    out.append(SimpleCommand(source[start:end], tuple(words), tuple(redirects)))
    return True
