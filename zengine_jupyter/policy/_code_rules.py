"""The gate for code run in the user's kernel (``RunCell``, call kind ``kernel``).

Kernel code cannot be sandboxed: it runs in the user's own process, with their variables,
files and credentials. So the rules are few and stated plainly:

1. a **deny** rule matches: deny. ``RunCell`` denies all; ``RunCell(pattern)`` (a glob, ``*``
   matches anything) denies code where *any* non-blank line, stripped, matches: a harmless
   first line does not hide a denied second one;
2. **plan** mode: deny, whatever allow rules say (plan mode runs nothing);
3. an **ask** rule matches (same matching as deny): ask;
4. an **allow** rule covers the code: allow. ``RunCell`` covers all code, as bypass would.
   ``RunCell(pattern)`` covers only code that is one line holding one statement (``ast``; a
   line IPython rewrites, such as ``%time f()``, counts as one when it has no ``;``) whose
   stripped text matches. Anything longer asks: ``RunCell(print*)`` does not allow
   ``print(1)\\nimport shutil; shutil.rmtree(...)`` nor ``print(1); import os``. What a pattern
   cannot do is make an expression safe: ``print(__import__("os").system("..."))`` is one
   statement starting with ``print``. A pattern rule is a convenience for code the user
   trusts by its shape, not a sandbox;
5. **bypass** mode: allow;
6. otherwise (default, accept_edits): ask, showing the exact code.
"""

from __future__ import annotations

import ast
import fnmatch
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zengine_jupyter.config import PermissionRule

__all__ = ["code_lines", "code_rule_allows", "code_rule_hit", "single_statement"]


def code_lines(code: str) -> list[str]:
    """The code's non-blank lines, stripped."""
    return [line.strip() for line in code.splitlines() if line.strip()]


def single_statement(code: str) -> str | None:
    """The one line of one-statement code, else ``None``."""
    lines = code_lines(code)
    if len(lines) != 1:
        return None
    line = lines[0]
    try:
        body = ast.parse(line).body
    except SyntaxError:  # IPython syntax (%magic, !cmd): one statement unless it has a ';'
        return None if ";" in line else line
    return line if len(body) == 1 else None


def code_rule_hit(rules: tuple[PermissionRule, ...], tool: str, code: str) -> str | None:
    """The first deny or ask rule matching the call: bare, or its pattern on any line."""
    lines = code_lines(code)
    for rule in rules:
        if not rule.applies_to(tool):
            continue
        if rule.specifier is None or any(fnmatch.fnmatchcase(x, rule.specifier) for x in lines):
            return str(rule)
    return None


def code_rule_allows(rules: tuple[PermissionRule, ...], tool: str, code: str) -> str | None:
    """The allow rule covering the call: bare, or its pattern on one-statement code."""
    applicable = [r for r in rules if r.applies_to(tool)]
    bare = next((r for r in applicable if r.specifier is None), None)
    if bare is not None:
        return str(bare)
    line = single_statement(code)
    if line is None:
        return None
    hit = next((r for r in applicable if fnmatch.fnmatchcase(line, r.specifier or "")), None)
    return None if hit is None else str(hit)
