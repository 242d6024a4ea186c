"""pytest and unittest summaries."""

from __future__ import annotations

import re

from zengine_jupyter.protocol import TestCounts
from zengine_jupyter.verify.parse._common import plain

__all__ = ["parse_pytest", "parse_unittest"]

_PYTEST_LINE = re.compile(
    r"^=*\s*((?:\d+ (?:passed|failed|skipped|errors?|xfailed|xpassed|deselected|warnings?|"
    r"rerun)(?:, )?)+|no tests ran)(?: in [\d.]+s.*)?\s*=*$",
    re.MULTILINE,
)
_PYTEST_PART = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)")


def parse_pytest(output: str) -> TestCounts | None:
    """The last summary line: ``=== 3 passed, 1 failed, 2 skipped in 0.1s ===`` (also -q)."""
    matches = list(_PYTEST_LINE.finditer(plain(output)))
    if not matches:
        return None
    summary = matches[-1].group(1)
    found = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}
    for count, word in _PYTEST_PART.findall(summary):
        key = {"xfailed": "skipped", "xpassed": "passed", "error": "errors"}.get(word, word)
        found[key] += int(count)
    return TestCounts(**found)


_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s", re.MULTILINE)
_RESULT = re.compile(r"^(OK|FAILED)(?: \(([^)]*)\))?\s*$", re.MULTILINE)


def parse_unittest(output: str) -> TestCounts | None:
    """``Ran 5 tests in 0.01s`` then ``OK (skipped=1)`` or ``FAILED (failures=1, errors=1)``."""
    text = plain(output)
    ran = list(_RAN.finditer(text))
    if not ran:
        return None
    total = int(ran[-1].group(1))
    result = _RESULT.search(text, ran[-1].end())
    details: dict[str, int] = {}
    if result and result.group(2):
        for part in result.group(2).split(","):
            key, _, value = part.strip().partition("=")
            if value.isdigit():
                details[key.strip()] = int(value)
    failed = details.get("failures", 0) + details.get("unexpected successes", 0)
    errors = details.get("errors", 0)
    skipped = details.get("skipped", 0) + details.get("expected failures", 0)
    return TestCounts(
        passed=max(total - failed - errors - skipped, 0),
        failed=failed,
        skipped=skipped,
        errors=errors,
    )
