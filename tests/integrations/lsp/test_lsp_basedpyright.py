"""Every LSP tool operation against a real basedpyright on the fixture project.

One server for the module (starting one costs about a second). Positions are 1-based; the
fixture's layout is in tests/fixtures/lsp_project/README.md.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from zengine_jupyter.integrations.lsp import (
    WAIT,
    LspManager,
    LspManagerOptions,
    LspQuery,
    diagnostics_after_write,
    lsp_query,
)
from zengine_jupyter.testing.lsp import lsp_manager_fixture, require_language_server, wait_until

pytestmark = pytest.mark.asyncio(loop_scope="module")


def _options(root: Path) -> LspManagerOptions:
    require_language_server("basedpyright-langserver", "pip install basedpyright")
    return LspManagerOptions(root)


manager = lsp_manager_fixture("lsp_project", _options)


def _rows(text: str) -> list[str]:
    return text.splitlines()[1:]


async def test_definition(manager: LspManager) -> None:
    answer = await lsp_query(manager, LspQuery("definition", "main.py", 9, 12))
    assert answer.ok, answer.text
    assert answer.server == "basedpyright"
    assert answer.text.splitlines() == [
        "Definition for main.py:9:12 (`total_area`) (basedpyright):",
        "shapes.py:21:5: def total_area(shapes: Sequence[Shape]) -> float:",
    ]


async def test_references(manager: LspManager) -> None:
    answer = await lsp_query(manager, LspQuery("references", "shapes.py", 13, 7))
    assert answer.ok, answer.text
    assert [(loc.path, loc.line, loc.column) for loc in answer.locations] == [
        ("main.py", 1, 20), ("main.py", 4, 21), ("main.py", 5, 13), ("main.py", 5, 26),
        ("shapes.py", 13, 7),
    ]  # fmt: skip
    assert "main.py:5:13: return [Square(1.0), Square(2.0)]" in answer.text


async def test_hover(manager: LspManager) -> None:
    answer = await lsp_query(manager, LspQuery("hover", "main.py", 9, 12))
    assert answer.ok, answer.text
    assert "def total_area(shapes: Sequence[Shape]) -> float" in (answer.hover or "")


async def test_implementation(manager: LspManager) -> None:
    answer = await lsp_query(manager, LspQuery("implementation", "shapes.py", 9, 9))
    assert answer.ok, answer.text
    assert ("shapes.py", 17, 9) in [(loc.path, loc.line, loc.column) for loc in answer.locations]


async def test_incoming_calls(manager: LspManager) -> None:
    answer = await lsp_query(manager, LspQuery("incoming_calls", "main.py", 4, 5))
    assert answer.ok, answer.text
    assert _rows(answer.text) == ["function report  main.py:9:23: return total_area(build())"]


async def test_outgoing_calls(manager: LspManager) -> None:
    answer = await lsp_query(manager, LspQuery("outgoing_calls", "main.py", 8, 5))
    assert answer.ok, answer.text
    assert sorted(_rows(answer.text)) == [
        "function build  main.py:4:5: def build() -> list[Square]:",
        "function total_area  shapes.py:21:5: def total_area(shapes: Sequence[Shape]) -> float:",
    ]


async def test_document_symbols(manager: LspManager) -> None:
    answer = await lsp_query(manager, LspQuery("document_symbols", "shapes.py"))
    assert answer.ok, answer.text
    top = [(loc.label, loc.line) for loc in answer.locations if loc.depth == 0]
    assert top == [("class Shape", 8), ("class Square", 13), ("function total_area", 21)]
    nested = [(loc.label, loc.line, loc.depth) for loc in answer.locations]
    assert ("method area", 17, 1) in nested
    assert answer.text.splitlines()[0] == "Symbols in shapes.py (basedpyright):"


async def test_workspace_symbols(manager: LspManager) -> None:
    answer = await lsp_query(manager, LspQuery("workspace_symbols", "main.py", query="total_are"))
    assert answer.ok, answer.text
    assert [(loc.label, loc.path, loc.line) for loc in answer.locations] == [
        ("function total_area", "shapes.py", 21)
    ]


async def test_diagnostics_lists_errors_and_warnings(manager: LspManager) -> None:
    broken = manager.root / "broken.py"
    broken.write_text("count: int = 'three'\n1 + 1\n")
    answer = await lsp_query(manager, LspQuery("diagnostics", "broken.py"))
    assert answer.ok, answer.text
    kinds = [(d.line, d.severity, d.code) for d in answer.diagnostics]
    assert kinds == [(1, "error", "reportAssignmentType"), (2, "warning", "reportUnusedExpression")]
    clean = await lsp_query(manager, LspQuery("diagnostics", "shapes.py"))
    assert clean.text == "basedpyright: no diagnostics in shapes.py"


async def test_rename_preview_leaves_every_file_byte_identical(manager: LspManager) -> None:
    before = {p: p.read_bytes() for p in manager.root.rglob("*") if p.is_file()}
    stats = {p: p.stat().st_mtime_ns for p in before}
    answer = await lsp_query(
        manager, LspQuery("rename_preview", "main.py", 9, 12, new_name="sum_areas")
    )
    assert answer.ok, answer.text
    assert {(e.path, e.line, e.column, e.new_text) for e in answer.edits} == {
        ("main.py", 1, 28, "sum_areas"), ("main.py", 9, 12, "sum_areas"),
        ("shapes.py", 21, 5, "sum_areas"),
    }  # fmt: skip
    assert "-def total_area(shapes: Sequence[Shape]) -> float:" in answer.text
    assert "+def sum_areas(shapes: Sequence[Shape]) -> float:" in answer.text
    assert "nothing was changed" in answer.text
    after = {p: p.read_bytes() for p in manager.root.rglob("*") if p.is_file()}
    assert after == before
    assert {p: p.stat().st_mtime_ns for p in before} == stats


async def test_after_write_reports_an_introduced_error_but_no_warnings(manager: LspManager) -> None:
    target = manager.root / "main.py"
    original = target.read_text()
    first = await diagnostics_after_write(manager, target)  # analysed by the queries above
    assert first.outcome == "reported", first
    assert first.errors == ()
    target.write_text(original + "\ntotal: int = report()\nundefined_name\n1 + 1\n")
    started = time.monotonic()
    report = await diagnostics_after_write(manager, target)
    elapsed = time.monotonic() - started
    assert report.outcome == "reported", report
    assert [(e.line, e.code) for e in report.errors] == [
        (11, "reportAssignmentType"), (12, "reportUndefinedVariable"),
    ]  # fmt: skip
    assert "warning" not in report.text()
    assert report.text().startswith("basedpyright reports 2 error(s) in main.py:")
    assert elapsed < WAIT * 1.5
    target.write_text(original)
    assert (await diagnostics_after_write(manager, target)).errors == ()


async def test_status_and_a_kill_restarts_basedpyright(manager: LspManager) -> None:
    import os
    import signal

    assert (await lsp_query(manager, LspQuery("hover", "main.py", 9, 12))).ok
    status = next(s for s in manager.status() if s.name == "basedpyright")
    assert status.state == "ready"
    assert status.pid is not None
    os.kill(status.pid, signal.SIGKILL)

    def restarted() -> bool:
        now = next(s for s in manager.status() if s.name == "basedpyright")
        return now.state == "ready" and now.pid not in (None, status.pid)

    await wait_until(restarted)
    answer = await lsp_query(manager, LspQuery("definition", "main.py", 9, 12))
    assert answer.ok, answer.text
    assert next(s for s in manager.status() if s.name == "basedpyright").restarts == 1
