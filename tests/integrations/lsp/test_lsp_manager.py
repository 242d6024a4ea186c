"""LspManager against the fixture server: lazy start, remembered failures, MAX_RESTARTS."""

from __future__ import annotations

import os
import shutil
import signal
import sys
from pathlib import Path

import pytest

from zengine_jupyter.integrations.lsp import (
    MAX_RESTARTS,
    LspManager,
    LspManagerOptions,
    LspQuery,
    LspServerEntry,
    lsp_query,
    render_status,
)
from zengine_jupyter.integrations.lsp._progress import LONG_WORK_S
from zengine_jupyter.protocol import JsonRpcClosedError, LspServerStatus
from zengine_jupyter.testing.lsp import wait_until
from zengine_jupyter.testing.lsp_server import fixture_server_entry


def _status(manager: LspManager, name: str) -> LspServerStatus:
    return next(s for s in manager.status() if s.name == name)


@pytest.fixture
def code(tmp_path: Path) -> Path:
    path = tmp_path / "a.fix"
    path.write_text("fine\nERROR here\n")
    return path


async def test_nothing_starts_up_front_and_the_first_question_starts_the_server(
    tmp_path: Path, code: Path
) -> None:
    starts = tmp_path / "starts"
    entry = fixture_server_entry("--starts-file", str(starts))
    async with LspManager(LspManagerOptions(tmp_path, entries=(entry,))) as manager:
        assert _status(manager, "fixture").state == "not_started"
        assert not starts.exists()
        answer = await lsp_query(manager, LspQuery("hover", str(code), 1, 1))
        assert answer.ok, answer.text
        assert answer.hover == "fixture hover"
        status = _status(manager, "fixture")
        assert (status.state, status.open_documents, status.builtin) == ("ready", 1, False)
        assert status.pid is not None
        await lsp_query(manager, LspQuery("hover", str(code), 2, 1))
        assert manager.starts("fixture") == 1
        view = render_status(manager.status()).splitlines()
        assert view[0].startswith("fixture ")
        assert f"ready         .fix [lsp.servers] - pid {status.pid}, 1 open file(s)" in view[0]
    assert len(starts.read_text().splitlines()) == 1
    assert _status(manager, "fixture").state == "stopped"


async def test_not_installed_names_the_install_command_and_is_not_retried(
    tmp_path: Path, code: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lookups: list[str] = []
    real_which = shutil.which

    def counting_which(
        cmd: str, mode: int = os.F_OK | os.X_OK, path: str | None = None
    ) -> str | None:
        lookups.append(cmd)
        return real_which(cmd, mode, path)

    monkeypatch.setattr(shutil, "which", counting_which)  # what the router looks servers up with
    entry = LspServerEntry(
        "ghost", "zengine-no-such-lsp", file_types=(".fix",),
        install="pip install zengine-ghost-lsp",
    )  # fmt: skip
    async with LspManager(LspManagerOptions(tmp_path, entries=(entry,))) as manager:
        for _ in range(3):
            answer = await lsp_query(manager, LspQuery("definition", str(code), 1, 1))
            assert not answer.ok
            assert "ghost is not installed" in answer.text
            assert "install it with: pip install zengine-ghost-lsp" in answer.text
        assert lookups.count("zengine-no-such-lsp") == 1
        assert manager.starts("ghost") == 0
        view = render_status(manager.status())
        assert "ghost" in view
        assert "not installed" in view
        assert "install: pip install zengine-ghost-lsp" in view
        status = _status(manager, "ghost")
        assert (status.state, status.install) == ("not_installed", "pip install zengine-ghost-lsp")


async def test_a_builtin_that_is_not_installed_names_its_install_command(tmp_path: Path) -> None:
    source = tmp_path / "main.go"
    source.write_text("package main\n")
    options = LspManagerOptions(tmp_path, search_path=str(tmp_path / "empty"))
    async with LspManager(options) as manager:
        answer = await lsp_query(manager, LspQuery("hover", str(source), 1, 1))
    assert not answer.ok
    assert answer.text == (
        "gopls is not installed (needed for .go files) "
        "(install it with: go install golang.org/x/tools/gopls@latest)"
    )


async def test_a_failed_start_is_remembered(tmp_path: Path, code: Path) -> None:
    starts = tmp_path / "starts"
    script = (
        f"import sys; open({str(starts)!r}, 'a').write('x\\n'); "
        "sys.stderr.write('boom\\n'); sys.exit(3)"
    )
    entry = LspServerEntry("broken", sys.executable, ("-c", script), (".fix",))
    async with LspManager(LspManagerOptions(tmp_path, entries=(entry,))) as manager:
        first = await lsp_query(manager, LspQuery("hover", str(code), 1, 1))
        second = await lsp_query(manager, LspQuery("references", str(code), 1, 1))
        status = _status(manager, "broken")
    assert not first.ok
    assert "broken is not available: it did not start" in first.text
    assert second.text == first.text
    assert status.state == "failed"
    assert "boom" in (status.detail or "")
    assert starts.read_text() == "x\n"


async def test_a_server_killed_four_times_is_restarted_three_times_then_failed(
    tmp_path: Path, code: Path
) -> None:
    starts = tmp_path / "starts"
    entry = fixture_server_entry("--starts-file", str(starts))
    async with LspManager(LspManagerOptions(tmp_path, entries=(entry,))) as manager:
        assert (await lsp_query(manager, LspQuery("hover", str(code)))).ok
        for kill in range(1, MAX_RESTARTS + 2):
            pid = _status(manager, "fixture").pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            if kill <= MAX_RESTARTS:

                def restarted(old: int = pid) -> bool:
                    status = _status(manager, "fixture")
                    return status.state == "ready" and status.pid != old

                await wait_until(restarted)
                assert _status(manager, "fixture").restarts == kill
                assert (await lsp_query(manager, LspQuery("hover", str(code)))).ok
        await wait_until(lambda: _status(manager, "fixture").state == "failed")
        status = _status(manager, "fixture")
        answer = await lsp_query(manager, LspQuery("hover", str(code)))
    assert status.restarts == MAX_RESTARTS
    assert f"crashed {MAX_RESTARTS + 1} times" in (status.detail or "")
    assert not answer.ok
    assert "fixture is not available: it crashed 4 times" in answer.text
    assert len(starts.read_text().splitlines()) == 1 + MAX_RESTARTS


async def test_a_crash_mid_request_is_a_typed_error_and_the_server_comes_back(
    tmp_path: Path, code: Path
) -> None:
    entry = fixture_server_entry()
    async with LspManager(LspManagerOptions(tmp_path, entries=(entry,))) as manager:
        client = await manager.client_for(code)
        with pytest.raises(JsonRpcClosedError, match="fixture closed the connection"):
            await client.request("fixture/crash", None, 10)
        assert _status(manager, "fixture").state in ("crashed", "starting")
        await wait_until(lambda: _status(manager, "fixture").state == "ready")
        assert _status(manager, "fixture").restarts == 1
        assert manager.running_client(code) is not client
        assert (await lsp_query(manager, LspQuery("hover", str(code)))).ok


async def test_status_shows_indexing_while_a_progress_token_is_open(
    tmp_path: Path, code: Path
) -> None:
    entry = fixture_server_entry("--index-s", str(LONG_WORK_S * 3))  # long work: indexing
    async with LspManager(LspManagerOptions(tmp_path, entries=(entry,))) as manager:
        await manager.client_for(code)
        await wait_until(lambda: _status(manager, "fixture").state == "indexing", 10)
        assert _status(manager, "fixture").detail == "Indexing"
        await wait_until(lambda: _status(manager, "fixture").state == "ready", 10)


async def test_initialization_options_answer_the_servers_configuration_requests(
    tmp_path: Path, code: Path
) -> None:
    base = fixture_server_entry()
    entry = LspServerEntry(
        base.name, base.command, base.args, base.file_types,
        initialization_options={"fixture": {"hover": "from settings"}},
    )  # fmt: skip
    async with LspManager(LspManagerOptions(tmp_path, entries=(entry,))) as manager:
        answer = await lsp_query(manager, LspQuery("hover", str(code)))
        bad = await lsp_query(manager, LspQuery("hover", str(code), 0, 1))
    assert answer.hover == "from settings"
    assert bad.text == "line and column are 1-based (got 0:1)"


async def test_files_no_server_serves_get_a_clear_answer(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    async with LspManager(LspManagerOptions(tmp_path)) as manager:
        answer = await lsp_query(manager, LspQuery("hover", str(notes)))
        missing = await lsp_query(manager, LspQuery("hover", str(tmp_path / "gone.py")))
    assert not answer.ok
    assert "no language server serves .txt files" in answer.text
    assert "[lsp.servers]" in answer.text
    assert missing.text == "gone.py is not a file: the LSP tool needs an existing file"
