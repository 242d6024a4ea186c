"""The common LSP tool operations against a real pylsp (with pyflakes), configured the way a
user would: an ``[lsp.servers]`` entry for .py files."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.integrations.lsp import (
    LspManager,
    LspManagerOptions,
    LspQuery,
    LspServerEntry,
    diagnostics_after_write,
    lsp_query,
)
from zengine_jupyter.testing.lsp import lsp_manager_fixture, require_language_server

pytestmark = pytest.mark.asyncio(loop_scope="module")


def _options(root: Path) -> LspManagerOptions:
    program = require_language_server("pylsp", "pip install 'python-lsp-server[pyflakes]'")
    entry = LspServerEntry("pylsp", program, file_types=(".py",), language_id="python")
    return LspManagerOptions(root, entries=(entry,))


manager = lsp_manager_fixture("lsp_project", _options)


async def test_definition(manager: LspManager) -> None:
    answer = await lsp_query(manager, LspQuery("definition", "main.py", 9, 12))
    assert answer.ok, answer.text
    assert answer.server == "pylsp"
    assert [(loc.path, loc.line, loc.column) for loc in answer.locations] == [("shapes.py", 21, 5)]


async def test_references(manager: LspManager) -> None:
    answer = await lsp_query(manager, LspQuery("references", "shapes.py", 13, 7))
    assert answer.ok, answer.text
    assert [(loc.path, loc.line) for loc in answer.locations] == [
        ("main.py", 1), ("main.py", 4), ("main.py", 5), ("main.py", 5), ("shapes.py", 13),
    ]  # fmt: skip


async def test_hover(manager: LspManager) -> None:
    answer = await lsp_query(manager, LspQuery("hover", "main.py", 9, 12))
    assert answer.ok, answer.text
    assert "total_area(shapes: Sequence[Shape]) -> float" in (answer.hover or "")


async def test_document_symbols(manager: LspManager) -> None:
    answer = await lsp_query(manager, LspQuery("document_symbols", "shapes.py"))
    assert answer.ok, answer.text
    labels = {(loc.label, loc.line) for loc in answer.locations}
    assert {("class Shape", 8), ("class Square", 13), ("function total_area", 21)} <= labels
    assert ("method area (in Square)", 17) in labels


async def test_diagnostics_and_after_write(manager: LspManager) -> None:
    target = manager.root / "main.py"
    original = target.read_text()
    clean = await lsp_query(manager, LspQuery("diagnostics", "main.py"))
    assert clean.text == "pylsp: no diagnostics in main.py"
    target.write_text("import os\n" + original + "\nundefined_name\n")
    try:
        report = await diagnostics_after_write(manager, target)
        assert report.outcome == "reported", report
        assert [(e.line, e.message) for e in report.errors] == [
            (12, "undefined name 'undefined_name'")
        ]
        answer = await lsp_query(manager, LspQuery("diagnostics", "main.py"))
        assert [(d.line, d.severity) for d in answer.diagnostics] == [(12, "error"), (1, "warning")]
        assert "'os' imported but unused" in answer.text
    finally:
        target.write_text(original)


async def test_rename_preview_leaves_files_byte_identical(manager: LspManager) -> None:
    before = {p: p.read_bytes() for p in manager.root.rglob("*.py")}
    answer = await lsp_query(
        manager, LspQuery("rename_preview", "main.py", 9, 12, new_name="sum_areas")
    )
    assert answer.ok, answer.text
    assert "+def sum_areas(shapes: Sequence[Shape]) -> float:" in answer.text
    assert "+    return sum_areas(build())" in answer.text
    assert {p: p.read_bytes() for p in manager.root.rglob("*.py")} == before


async def test_operations_pylsp_lacks_say_so(manager: LspManager) -> None:
    answer = await lsp_query(manager, LspQuery("incoming_calls", "main.py", 4, 5))
    assert not answer.ok
    assert answer.text == "pylsp does not support callers (asked about main.py)"
