"""A server that has just opened a file may answer it twice at the same version: first
without its checker's findings, then with them (a freshly started basedpyright did, 15-90 ms
apart). The diagnostics query of a file it opens takes the last answer that comes soon after
the first, so a broken file is not reported clean."""

from __future__ import annotations

from pathlib import Path

from zengine_jupyter.integrations.lsp import LspManager, LspManagerOptions, LspQuery, lsp_query
from zengine_jupyter.testing.lsp_server import fixture_server_entry


def _manager(root: Path, *options: str) -> LspManager:
    return LspManager(LspManagerOptions(root, entries=(fixture_server_entry(*options),)))


async def test_a_first_answer_without_the_checker_is_not_taken_for_the_last(
    tmp_path: Path,
) -> None:
    code = tmp_path / "a.fix"
    code.write_text("fine\nERROR here\nWARN there\n")
    async with _manager(tmp_path, "--partial-first-s", "0.05") as manager:
        answer = await lsp_query(manager, LspQuery("diagnostics", "a.fix"))
        assert answer.ok, answer.text
        assert [(d.line, d.severity) for d in answer.diagnostics] == [(2, "error"), (3, "warning")]
        assert answer.text.splitlines()[0] == "fixture: 2 diagnostic(s) in a.fix"
        code.write_text("fine\n")  # a change is answered once: the fix is seen as clean
        again = await lsp_query(manager, LspQuery("diagnostics", "a.fix"))
        assert again.ok, again.text
        assert again.text == "fixture: no diagnostics in a.fix"


async def test_a_clean_file_opened_is_reported_clean(tmp_path: Path) -> None:
    """No second answer comes: the first one stands once the short wait for it is over."""
    (tmp_path / "a.fix").write_text("fine\n")
    async with _manager(tmp_path) as manager:
        answer = await lsp_query(manager, LspQuery("diagnostics", "a.fix"))
    assert answer.ok, answer.text
    assert answer.text == "fixture: no diagnostics in a.fix"
