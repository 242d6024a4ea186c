"""Every count parser on output samples (real runs where the tool exists; see samples/README)."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.protocol import TestCounts
from zengine_jupyter.verify.parse import PARSERS, parse_counts

SAMPLES = Path(__file__).parent / "samples"


def counts(
    passed: int | None, failed: int | None, skipped: int | None, errors: int | None
) -> TestCounts:
    return TestCounts(passed=passed, failed=failed, skipped=skipped, errors=errors)


CASES = [
    ("pytest", "pytest_pass.txt", counts(4, 0, 1, 0)),
    ("pytest", "pytest_fail.txt", counts(1, 1, 0, 0)),
    ("pytest", "pytest_fail_quiet.txt", counts(1, 1, 0, 0)),
    ("unittest", "unittest_fail.txt", counts(1, 1, 1, 0)),
    ("node", "npm_node_test.txt", counts(2, 0, 1, 0)),
    ("node", "node_test_tap.txt", counts(2, 0, 1, 0)),
    ("node", "node_test_spec.txt", counts(2, 0, 1, 0)),
    ("cargo", "cargo_test.txt", counts(1, 0, 1, 0)),
    ("ctest", "ctest_pass.txt", counts(2, 0, 0, 0)),
    ("ctest", "ctest_fail.txt", counts(1, 1, 1, 0)),
    ("go", "go_test.txt", counts(None, 1, None, 0)),
    ("go", "go_test_verbose.txt", counts(2, 1, 1, 0)),
    ("jest", "jest_fail.txt", counts(3, 1, 1, 0)),
    ("vitest", "vitest_fail.txt", counts(3, 1, 1, 0)),
    ("mocha", "mocha_fail.txt", counts(2, 1, 1, 0)),
    ("rspec", "rspec_fail.txt", counts(2, 1, 1, 0)),
    ("maven", "maven_fail.txt", counts(2, 1, 1, 0)),
    ("deno", "deno_pass.txt", counts(2, 0, 1, 0)),
    ("bun", "bun_fail.txt", counts(1, 1, 1, 0)),
]


@pytest.mark.parametrize(("parser", "sample", "expected"), CASES, ids=[c[1] for c in CASES])
def test_parser_reads_its_sample(parser: str, sample: str, expected: TestCounts) -> None:
    text = (SAMPLES / sample).read_text(encoding="utf-8")
    assert PARSERS[parser](text) == expected
    assert parse_counts(text, parser) == expected


@pytest.mark.parametrize(("parser", "sample", "expected"), CASES, ids=[c[1] for c in CASES])
def test_auto_detection_finds_the_same_counts(
    parser: str, sample: str, expected: TestCounts
) -> None:
    text = (SAMPLES / sample).read_text(encoding="utf-8")
    assert parse_counts(text) == expected


def test_every_parser_has_a_sample() -> None:
    assert {c[0] for c in CASES} | {"notebooks"} == set(PARSERS)


def test_notebooks_totals() -> None:
    text = "PASS a.ipynb (1.0 s): 2 code cells\nFAIL b.ipynb (1.1 s): ValueError: x\n"
    assert parse_counts(text + "notebooks: 1 passed, 1 failed\n", "notebooks") == counts(1, 1, 0, 0)


def test_unrecognised_output_gives_unknown_counts() -> None:
    found = parse_counts("compiling...\nall good\n", "pytest")
    assert found == TestCounts()
    assert not found.known


def test_pytest_counts_errors_and_no_tests() -> None:
    text = "==== 2 passed, 1 error, 3 deselected in 0.5s ====\n"
    assert parse_counts(text, "pytest") == counts(2, 0, 0, 1)
    assert parse_counts("==== no tests ran in 0.01s ====", "pytest") == counts(0, 0, 0, 0)


def test_unittest_all_ok() -> None:
    text = "....\n----------------------------------------------------------------------\n"
    text += "Ran 4 tests in 0.002s\n\nOK (skipped=1)\n"
    assert parse_counts(text, "unittest") == counts(3, 0, 1, 0)
