"""The LSP tool against a real typescript-language-server (npm; scripts/test installs it
into the venv's npm-tools folder) on a small TypeScript fixture project."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.integrations.lsp import (
    LspManager,
    LspManagerOptions,
    LspQuery,
    diagnostics_after_write,
    lsp_query,
)
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.lsp import (
    lsp_manager_fixture,
    require_language_server,
    search_path,
    wait_until,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


def _options(root: Path) -> LspManagerOptions:
    require_component("node")
    require_language_server(
        "typescript-language-server", "npm install typescript-language-server typescript@5"
    )
    return LspManagerOptions(root, search_path=search_path())


async def _analysed(manager: LspManager, root: Path) -> None:
    """tsserver loads its project after initialize: wait until both files are analysed (a
    loaded 2-core machine can take longer than one diagnostics wait for the first answer)."""
    for name in ("main.ts", "shapes.ts"):
        for _ in range(6):
            answer = await lsp_query(manager, LspQuery("diagnostics", name))
            if answer.ok or "published no diagnostics" not in answer.text:
                break
        assert answer.ok, answer.text
    client = manager.running_client(root / "main.ts")
    assert client is not None
    await wait_until(lambda: not client.busy)


manager = lsp_manager_fixture("lsp_project_ts", _options, _analysed)


def _where(answer: object) -> list[tuple[str, int, int]]:
    return [(loc.path, loc.line, loc.column) for loc in answer.locations]  # type: ignore[attr-defined]


async def test_typescript5_names_its_version_in_lsp(manager: LspManager) -> None:
    """TypeScript before 7 has a tsserver: typescript-language-server serves it, not tsc."""
    rows = {row.name: row for row in manager.status()}
    assert rows["typescript-language-server"].state == "ready"
    version = rows["typescript-language-server"].version or ""
    assert version.startswith("TypeScript 5."), version
    assert rows["tsc"].state == "not_started"
    assert rows["tsc"].detail == f"not used: {version} is older than 7 (no tsc --lsp)"


async def test_navigation(manager: LspManager) -> None:
    hover = await lsp_query(manager, LspQuery("hover", "main.ts", 8, 10))
    assert "totalArea(shapes: Shape[]): number" in (hover.hover or "")
    definition = await lsp_query(manager, LspQuery("definition", "shapes.ts", 14, 10))
    assert definition.ok, definition.text
    assert definition.server == "typescript-language-server"
    assert _where(definition) == [("shapes.ts", 13, 27)]  # the parameter `shapes`
    references = await lsp_query(manager, LspQuery("references", "shapes.ts", 5, 14))
    assert _where(references) == [
        ("main.ts", 1, 10), ("main.ts", 3, 26), ("main.ts", 4, 15), ("main.ts", 4, 30),
        ("shapes.ts", 5, 14),
    ]  # fmt: skip
    implementation = await lsp_query(manager, LspQuery("implementation", "shapes.ts", 2, 3))
    assert _where(implementation) == [("shapes.ts", 8, 3)]


async def test_calls_and_symbols(manager: LspManager) -> None:
    callers = await lsp_query(manager, LspQuery("incoming_calls", "main.ts", 3, 17))
    assert callers.text.splitlines()[1:] == [
        "function report  main.ts:8:20: return totalArea(build());"
    ]
    callees = await lsp_query(manager, LspQuery("outgoing_calls", "main.ts", 7, 17))
    assert {loc.label for loc in callees.locations} == {"function totalArea", "function build"}
    symbols = await lsp_query(manager, LspQuery("document_symbols", "shapes.ts"))
    top = [(loc.label, loc.line) for loc in symbols.locations if loc.depth == 0]
    assert top == [("interface Shape", 1), ("class Square", 5), ("function totalArea", 13)]
    found = await lsp_query(manager, LspQuery("workspace_symbols", "main.ts", query="totalArea"))
    assert ("function totalArea", "shapes.ts", 13) in [
        (loc.label, loc.path, loc.line) for loc in found.locations
    ]


async def test_rename_preview_and_after_write(manager: LspManager) -> None:
    before = {p: p.read_bytes() for p in manager.root.iterdir() if p.is_file()}
    rename = await lsp_query(
        manager, LspQuery("rename_preview", "shapes.ts", 13, 17, new_name="sumAreas")
    )
    assert rename.ok, rename.text
    assert "+export function sumAreas(shapes: Shape[]): number {" in rename.text
    assert {p: p.read_bytes() for p in manager.root.iterdir() if p.is_file()} == before
    target = manager.root / "main.ts"
    clean = await lsp_query(manager, LspQuery("diagnostics", "main.ts"))  # analysed once
    assert clean.text == "typescript-language-server: no diagnostics in main.ts"
    target.write_text(target.read_text() + "\nconst wrong: number = 'a';\n")
    report = await diagnostics_after_write(manager, target)
    assert report.outcome == "reported", report
    assert [(e.line, e.code) for e in report.errors] == [(11, "2322")]
