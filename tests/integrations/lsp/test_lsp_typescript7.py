"""TypeScript 7 (npm ``typescript@7``: the native compiler, no tsserver) serves through its own
language server, ``tsc --lsp --stdio``: LSP answers and errors after a write on the real
package that ``tests/fixtures/npm`` pins (scripts/test installs it with ``npm ci``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zengine_jupyter.integrations.lsp import (
    LspManager,
    LspManagerOptions,
    LspQuery,
    default_search_path,
    diagnostics_after_write,
    lsp_query,
    render_status,
)
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.lsp import (
    NPM_TOOLS,
    lsp_manager_fixture,
    require_typescript7,
    wait_until,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

FIXTURES = Path(__file__).parents[2] / "fixtures"


def _options(root: Path) -> LspManagerOptions:
    """TypeScript 7 first on the path, typescript-language-server (with TypeScript 5 beside
    it) after: the tsc found first, 7, decides."""
    require_component("node")
    ts7 = require_typescript7(FIXTURES)
    return LspManagerOptions(
        root, search_path=os.pathsep.join((str(ts7), default_search_path(), str(NPM_TOOLS)))
    )


async def _analysed(manager: LspManager, root: Path) -> None:
    for name in ("main.ts", "shapes.ts"):
        answer = await lsp_query(manager, LspQuery("diagnostics", name))
        assert answer.ok, answer.text
    client = manager.running_client(root / "main.ts")
    assert client is not None
    await wait_until(lambda: not client.busy)


manager = lsp_manager_fixture("lsp_project_ts", _options, _analysed)


async def test_typescript7_is_served_by_tsc_lsp_and_lsp_names_its_version(
    manager: LspManager,
) -> None:
    rows = {row.name: row for row in manager.status()}
    assert rows["tsc"].state == "ready"
    assert rows["tsc"].command[1:] == ["--lsp", "--stdio"]
    assert rows["tsc"].version == "TypeScript 7.0.2"
    unused = rows["typescript-language-server"]
    assert unused.state == "not_started"
    assert unused.detail == (
        "not used: TypeScript 7.0.2 has no tsserver; tsc --lsp serves these files"
    )
    assert "tsc" in render_status(manager.status())
    assert "TypeScript 7.0.2" in render_status(manager.status())


async def test_typescript7_answers_navigation(manager: LspManager) -> None:
    hover = await lsp_query(manager, LspQuery("hover", "main.ts", 8, 10))
    assert hover.server == "tsc"
    assert "totalArea(shapes: Shape[]): number" in (hover.hover or "")
    definition = await lsp_query(manager, LspQuery("definition", "shapes.ts", 14, 10))
    assert [(loc.path, loc.line, loc.column) for loc in definition.locations] == [
        ("shapes.ts", 13, 27)
    ]
    references = await lsp_query(manager, LspQuery("references", "shapes.ts", 5, 14))
    assert len(references.locations) == 5, references.text
    callers = await lsp_query(manager, LspQuery("incoming_calls", "main.ts", 3, 17))
    assert callers.text.splitlines()[1:] == [
        "function report  main.ts:8:20: return totalArea(build());"
    ]


async def test_typescript7_reports_errors_after_a_write(manager: LspManager) -> None:
    """tsc --lsp publishes nothing on its own: diagnostics are pulled
    (``textDocument/diagnostic``), both for the LSP tool and after a write."""
    clean = await lsp_query(manager, LspQuery("diagnostics", "main.ts"))
    assert clean.text == "tsc: no diagnostics in main.ts"
    target = manager.root / "main.ts"
    target.write_text(target.read_text() + "\nconst wrong: number = 'a';\n")
    report = await diagnostics_after_write(manager, target)
    assert report.outcome == "reported", report
    assert [(e.line, e.code) for e in report.errors] == [(11, "2322")]
    assert "tsc reports 1 error(s) in main.ts" in report.text()


async def test_a_file_opened_by_a_first_write_is_analysed_for_the_next(
    manager: LspManager,
) -> None:
    """The first write to a file the server never saw opens it without waiting; a pull
    server is then asked in the background, so the next write is waited on."""
    fresh = manager.root / "extra.ts"
    fresh.write_text("export const n: number = 1;\n")
    first = await diagnostics_after_write(manager, fresh)
    assert first.outcome == "first_analysis"
    client = manager.running_client(fresh)
    assert client is not None
    await wait_until(lambda: client.published(fresh) is not None)
    fresh.write_text("export const n: number = 'x';\n")
    second = await diagnostics_after_write(manager, fresh)
    assert second.outcome == "reported", second
    assert [e.code for e in second.errors] == ["2322"]
