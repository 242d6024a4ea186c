"""After-write errors against the deliberately slow fixture server: never stall a write."""

from __future__ import annotations

import time
from pathlib import Path

from zengine_jupyter.integrations.lsp import (
    MAX_ERROR_LINES,
    WAIT,
    LspManager,
    LspManagerOptions,
    diagnostics_after_write,
)
from zengine_jupyter.testing.lsp import wait_until
from zengine_jupyter.testing.lsp_server import fixture_server_entry


def _manager(root: Path, *options: str) -> LspManager:
    return LspManager(LspManagerOptions(root, entries=(fixture_server_entry(*options),)))


async def _analysed(manager: LspManager, path: Path) -> None:
    """Open ``path`` through a first write and wait until the server analysed it."""
    first = await diagnostics_after_write(manager, path)
    assert first.outcome in ("started", "first_analysis")
    await wait_until(lambda: manager.server_state(path) == "ready")
    if first.outcome == "started":
        assert (await diagnostics_after_write(manager, path)).outcome == "first_analysis"
    client = manager.running_client(path)
    assert client is not None
    await wait_until(lambda: client.published(path) is not None)


async def test_errors_only_at_most_twenty_lines(tmp_path: Path) -> None:
    code = tmp_path / "a.fix"
    code.write_text("clean\n")
    async with _manager(tmp_path) as manager:
        await _analysed(manager, code)
        code.write_text("".join(f"ERROR {i}\nWARN {i}\n" for i in range(25)))
        report = await diagnostics_after_write(manager, code)
    assert report.outcome == "reported"
    assert report.total_errors == 25
    assert len(report.errors) == MAX_ERROR_LINES
    assert all(e.severity == "error" for e in report.errors)
    lines = report.text().splitlines()
    assert lines[0] == "fixture reports 25 error(s) in a.fix:"
    assert lines[1] == "a.fix:1:1: error: fixture error on line 1"
    assert lines[-1] == "... and 5 more error(s)"
    assert len(lines) == 1 + MAX_ERROR_LINES + 1
    assert "warning" not in report.text()


async def test_a_clean_write_adds_nothing(tmp_path: Path) -> None:
    code = tmp_path / "a.fix"
    code.write_text("ERROR\n")
    async with _manager(tmp_path) as manager:
        await _analysed(manager, code)
        code.write_text("fixed\nWARN only\n")
        report = await diagnostics_after_write(manager, code)
    assert (report.outcome, report.errors, report.text()) == ("reported", (), "")


async def test_a_slow_server_is_waited_on_for_at_most_wait(tmp_path: Path) -> None:
    code = tmp_path / "a.fix"
    code.write_text("clean\n")
    async with _manager(tmp_path, "--change-delay", str(WAIT * 5)) as manager:
        await _analysed(manager, code)
        code.write_text("ERROR\n")
        started = time.monotonic()
        report = await diagnostics_after_write(manager, code)
        elapsed = time.monotonic() - started
    assert report.outcome == "timed_out"
    assert report.text() == ""
    assert report.waited_s >= WAIT * 0.9  # it did wait for the server...
    assert elapsed < WAIT * 1.5  # ...but not for the 5 x WAIT it needed


async def test_a_wedged_server_that_stops_reading_does_not_stall_the_write(
    tmp_path: Path,
) -> None:
    code = tmp_path / "a.fix"
    code.write_text("clean\n")
    async with _manager(tmp_path, "--freeze-s", str(WAIT * 3)) as manager:
        await _analysed(manager, code)
        big = "ERROR padding padding padding padding padding padding padding\n" * 20_000
        code.write_text(big)  # about 1.3 MB: more than a pipe holds, so the write must block
        started = time.monotonic()
        first = await diagnostics_after_write(manager, code)
        code.write_text(big + "again\n")
        second = await diagnostics_after_write(manager, code)
        elapsed = time.monotonic() - started
    assert (first.outcome, second.outcome) == ("timed_out", "timed_out")
    assert elapsed < 2 * WAIT * 1.5


async def test_a_server_not_running_is_started_in_the_background(tmp_path: Path) -> None:
    code = tmp_path / "a.fix"
    code.write_text("ERROR\n")
    async with _manager(tmp_path, "--init-delay", str(WAIT)) as manager:
        started = time.monotonic()
        first = await diagnostics_after_write(manager, code)
        second = await diagnostics_after_write(manager, code)
        elapsed = time.monotonic() - started
        assert (first.outcome, second.outcome) == ("started", "starting")
        assert elapsed < WAIT / 2  # neither waited for the start
        assert manager.starts("fixture") == 1
        await wait_until(lambda: manager.server_state(code) == "ready")


async def test_a_write_while_indexing_returns_without_waiting(tmp_path: Path) -> None:
    code = tmp_path / "a.fix"
    code.write_text("clean\n")
    async with _manager(tmp_path, "--index-s", str(WAIT * 3)) as manager:
        client = await manager.client_for(code)
        await client.sync(code)
        await wait_until(lambda: client.published(code) is not None and client.busy)
        code.write_text("ERROR\n")
        started = time.monotonic()
        report = await diagnostics_after_write(manager, code)
        elapsed = time.monotonic() - started
    assert report.outcome == "indexing"
    assert report.text() == ""
    assert elapsed < WAIT / 2


async def test_other_file_types_and_missing_servers_add_nothing(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("x\n")
    source = tmp_path / "main.go"
    source.write_text("package main\n")
    options = LspManagerOptions(tmp_path, search_path=str(tmp_path / "empty"))
    async with LspManager(options) as manager:
        assert (await diagnostics_after_write(manager, notes)).outcome == "no_server"
        assert (await diagnostics_after_write(manager, source)).outcome == "unavailable"
        assert manager.starts("gopls") == 0
