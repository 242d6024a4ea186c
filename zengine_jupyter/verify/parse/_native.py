"""cargo test, go test, ctest, rspec, Maven Surefire and deno test summaries."""

from __future__ import annotations

import re

from zengine_jupyter.protocol import TestCounts
from zengine_jupyter.verify.parse._common import number, plain

__all__ = [
    "parse_cargo",
    "parse_ctest",
    "parse_deno",
    "parse_go",
    "parse_maven",
    "parse_rspec",
]

_CARGO = re.compile(
    r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored; \d+ measured;",
    re.MULTILINE,
)


def parse_cargo(output: str) -> TestCounts | None:
    """Every ``test result:`` line (one per test binary and the doctests), summed."""
    rows = _CARGO.findall(plain(output))
    if not rows:
        return None
    return TestCounts(
        passed=sum(int(r[0]) for r in rows),
        failed=sum(int(r[1]) for r in rows),
        skipped=sum(int(r[2]) for r in rows),
        errors=0,
    )


_GO_TEST = re.compile(r"^--- (PASS|FAIL|SKIP): ", re.MULTILINE)
_GO_PACKAGE = re.compile(
    r"^(ok|FAIL|\?)\s+\S+\s+(?:[\d.]+s\b|\(cached\)|\[no test files\]|\[build failed\])",
    re.MULTILINE,
)
_GO_BUILD_FAILED = re.compile(r"^FAIL\s+\S+ \[(?:build|setup) failed\]", re.MULTILINE)


def parse_go(output: str) -> TestCounts | None:
    """Top-level ``--- PASS/FAIL/SKIP:`` lines (all of them under ``-v``, failures without it).

    Without ``-v`` passes are not listed: ``passed`` is then None when packages passed.
    """
    text = plain(output)
    results = _GO_TEST.findall(text)
    packages = _GO_PACKAGE.findall(text)
    if not results and not packages:
        return None
    passed = results.count("PASS")
    verbose = "=== RUN" in text
    return TestCounts(
        passed=passed if (verbose or "ok" not in packages) else None,
        failed=results.count("FAIL"),
        skipped=results.count("SKIP") if verbose else None,
        errors=len(_GO_BUILD_FAILED.findall(text)),
    )


_CTEST = re.compile(r"(\d+)% tests passed, (\d+) tests? failed out of (\d+)")
_CTEST_SKIPPED = re.compile(r"^\s*\d+ - .*\((?:Skipped|Disabled)\)\s*$", re.MULTILINE)


def parse_ctest(output: str) -> TestCounts | None:
    """``67% tests passed, 1 tests failed out of 3``; skipped and disabled tests listed after."""
    text = plain(output)
    m = list(_CTEST.finditer(text))
    if not m:
        return None
    failed, total = int(m[-1].group(2)), int(m[-1].group(3))
    skipped = len(_CTEST_SKIPPED.findall(text))
    return TestCounts(passed=total - failed - skipped, failed=failed, skipped=skipped, errors=0)


_RSPEC = re.compile(r"^(\d+) examples?, (\d+) failures?(?:, (\d+) pending)?", re.MULTILINE)
_RSPEC_ERRORS = re.compile(r"(\d+) errors? occurred outside of examples")


def parse_rspec(output: str) -> TestCounts | None:
    """``5 examples, 1 failure, 2 pending`` (and errors outside of examples)."""
    text = plain(output)
    m = list(_RSPEC.finditer(text))
    errors = number(_RSPEC_ERRORS, text) or 0
    if not m:
        return TestCounts(passed=0, failed=0, skipped=0, errors=errors) if errors else None
    total, failed = int(m[-1].group(1)), int(m[-1].group(2))
    pending = int(m[-1].group(3) or 0)
    return TestCounts(
        passed=total - failed - pending, failed=failed, skipped=pending, errors=errors
    )


_SUREFIRE = re.compile(
    r"Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)(?!.*Time elapsed)"
)


def parse_maven(output: str) -> TestCounts | None:
    """Surefire's ``Tests run: 5, Failures: 1, Errors: 0, Skipped: 1`` totals (the last one)."""
    m = list(_SUREFIRE.finditer(plain(output)))
    if not m:
        return None
    run, failed, errors, skipped = (int(g) for g in m[-1].groups())
    return TestCounts(
        passed=run - failed - errors - skipped, failed=failed, skipped=skipped, errors=errors
    )


_STEPS = r"(?: \(\d+ steps?\))?"
_DENO = re.compile(
    rf"^(?:ok|FAILED) \| (\d+) passed{_STEPS} \| (\d+) failed{_STEPS}(?: \| (\d+) ignored)?",
    re.MULTILINE,
)


def parse_deno(output: str) -> TestCounts | None:
    """``ok | 3 passed | 0 failed | 1 ignored (12ms)``."""
    m = list(_DENO.finditer(plain(output)))
    if not m:
        return None
    passed, failed, ignored = m[-1].group(1), m[-1].group(2), m[-1].group(3)
    return TestCounts(passed=int(passed), failed=int(failed), skipped=int(ignored or 0), errors=0)
