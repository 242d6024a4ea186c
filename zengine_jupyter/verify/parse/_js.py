"""jest, vitest, ``node --test`` and mocha summaries."""

from __future__ import annotations

import re

from zengine_jupyter.protocol import TestCounts
from zengine_jupyter.verify.parse._common import number, plain

__all__ = ["parse_bun", "parse_jest", "parse_mocha", "parse_node", "parse_vitest"]

_JEST = re.compile(r"^Tests:\s+(.*?)(\d+) total\s*$", re.MULTILINE)
_WORD = re.compile(r"(\d+) (passed|failed|skipped|todo|pending)")


def parse_jest(output: str) -> TestCounts | None:
    """``Tests:       1 failed, 1 skipped, 2 passed, 4 total``."""
    m = list(_JEST.finditer(plain(output)))
    if not m:
        return None
    words = {w: int(n) for n, w in _WORD.findall(m[-1].group(1))}
    return TestCounts(
        passed=words.get("passed", 0),
        failed=words.get("failed", 0),
        skipped=words.get("skipped", 0) + words.get("todo", 0) + words.get("pending", 0),
        errors=0,
    )


_VITEST = re.compile(r"^\s*Tests\s+(.*?)\((\d+)\)\s*$", re.MULTILINE)
_VITEST_ERRORS = re.compile(r"^\s*Errors\s+(\d+) errors?", re.MULTILINE)


def parse_vitest(output: str) -> TestCounts | None:
    """``      Tests  1 failed | 3 passed | 1 skipped (5)`` (plus ``Errors  1 error``)."""
    text = plain(output)
    m = list(_VITEST.finditer(text))
    if not m:
        return None
    words = {w: int(n) for n, w in _WORD.findall(m[-1].group(1))}
    return TestCounts(
        passed=words.get("passed", 0),
        failed=words.get("failed", 0),
        skipped=words.get("skipped", 0) + words.get("todo", 0),
        errors=number(_VITEST_ERRORS, text) or 0,
    )


_INFO = "\N{INFORMATION SOURCE}"  # the spec reporter's line marker
_NODE_FIELDS = ("tests", "pass", "fail", "skipped", "todo", "cancelled")
_NODE = {
    name: re.compile(rf"^(?:#|{_INFO}) {name} (\d+)\s*$", re.MULTILINE) for name in _NODE_FIELDS
}


def parse_node(output: str) -> TestCounts | None:
    """The ``node --test`` totals: ``# pass 2`` (TAP) or ``(i) pass 2`` (spec reporter)."""
    text = plain(output)
    found = {name: number(pattern, text) for name, pattern in _NODE.items()}
    if found["tests"] is None or found["pass"] is None:
        return None
    return TestCounts(
        passed=found["pass"],
        failed=found["fail"] or 0,
        skipped=(found["skipped"] or 0) + (found["todo"] or 0),
        errors=found["cancelled"] or 0,
    )


_MOCHA_PASS = re.compile(r"^\s*(\d+) passing \(", re.MULTILINE)
_MOCHA_FAIL = re.compile(r"^\s*(\d+) failing\s*$", re.MULTILINE)
_MOCHA_PENDING = re.compile(r"^\s*(\d+) pending\s*$", re.MULTILINE)


def parse_mocha(output: str) -> TestCounts | None:
    """``  3 passing (12ms)`` / ``  1 pending`` / ``  2 failing``."""
    text = plain(output)
    passed = number(_MOCHA_PASS, text)
    failed = number(_MOCHA_FAIL, text)
    if passed is None and failed is None:
        return None
    return TestCounts(
        passed=passed or 0,
        failed=failed or 0,
        skipped=number(_MOCHA_PENDING, text) or 0,
        errors=0,
    )


_BUN = {
    word: re.compile(rf"^\s*(\d+) {word}\s*$", re.MULTILINE)
    for word in ("pass", "fail", "skip", "todo")
}
_BUN_RAN = re.compile(r"^Ran \d+ tests? across \d+ files?", re.MULTILINE)


def parse_bun(output: str) -> TestCounts | None:
    """``bun test``: `` 3 pass`` / `` 1 skip`` / `` 1 fail`` then ``Ran 5 tests across 2 files``."""
    text = plain(output)
    if not _BUN_RAN.search(text):
        return None
    found = {word: number(pattern, text) or 0 for word, pattern in _BUN.items()}
    return TestCounts(
        passed=found["pass"], failed=found["fail"], skipped=found["skip"] + found["todo"], errors=0
    )
