"""Pick the parser for a check's output, by name or by trying each."""

from __future__ import annotations

import re
from collections.abc import Callable

from zengine_jupyter.protocol import TestCounts
from zengine_jupyter.verify.parse._common import plain
from zengine_jupyter.verify.parse._js import (
    parse_bun,
    parse_jest,
    parse_mocha,
    parse_node,
    parse_vitest,
)
from zengine_jupyter.verify.parse._native import (
    parse_cargo,
    parse_ctest,
    parse_deno,
    parse_go,
    parse_maven,
    parse_rspec,
)
from zengine_jupyter.verify.parse._python import parse_pytest, parse_unittest

__all__ = ["PARSERS", "parse_counts", "parse_notebooks"]

_NOTEBOOKS = re.compile(r"^notebooks: (\d+) passed, (\d+) failed\s*$", re.MULTILINE)


def parse_notebooks(output: str) -> TestCounts | None:
    """The notebooks check's last line: ``notebooks: 1 passed, 1 failed``."""
    m = list(_NOTEBOOKS.finditer(plain(output)))
    if not m:
        return None
    return TestCounts(passed=int(m[-1].group(1)), failed=int(m[-1].group(2)), skipped=0, errors=0)


Parser = Callable[[str], TestCounts | None]

PARSERS: dict[str, Parser] = {
    "pytest": parse_pytest,
    "unittest": parse_unittest,
    "cargo": parse_cargo,
    "go": parse_go,
    "jest": parse_jest,
    "vitest": parse_vitest,
    "node": parse_node,
    "mocha": parse_mocha,
    "rspec": parse_rspec,
    "ctest": parse_ctest,
    "maven": parse_maven,
    "deno": parse_deno,
    "bun": parse_bun,
    "notebooks": parse_notebooks,
}
"""Parser name -> parser. When a check names none, they are tried in this order."""


def parse_counts(output: str, parser: str | None = None) -> TestCounts:
    """Test counts from ``output``; all None when nothing recognisable is in it.

    A named parser that finds nothing falls back to trying the others (a script may wrap
    a different runner than its name suggests).
    """
    if parser is not None and parser in PARSERS:
        counts = PARSERS[parser](output)
        if counts is not None:
            return counts
    for name, candidate in PARSERS.items():
        if name == parser:
            continue
        counts = candidate(output)
        if counts is not None:
            return counts
    return TestCounts()
