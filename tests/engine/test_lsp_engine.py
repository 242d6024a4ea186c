"""The language servers wired into a chat, driven through the local provider server: the LSP
tool under Read rules, errors appended to a real Edit's result, /lsp, trust and shutdown."""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from zengine_jupyter.config import Settings
from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.engine.lsp import LspExtension, lsp_entries
from zengine_jupyter.integrations.lsp import MAX_ERROR_LINES, WAIT
from zengine_jupyter.testing import (
    ProviderServer,
    Reply,
    ScriptedToolCall,
    process_gone,
    provider_settings,
)
from zengine_jupyter.testing.lsp import require_language_server, wait_until
from zengine_jupyter.testing.lsp_server import fixture_server_argv

FIXTURES = Path(__file__).parents[1] / "fixtures"


def settings(server: ProviderServer, *extra: str) -> str:
    return provider_settings(server.base_url, "\n".join([*extra, ""]))


def fixture_server(*options: str) -> str:
    command, *args = fixture_server_argv(*options)
    return (f"[lsp.servers.fixture]\ncommand = {json.dumps(command)}\n"
            f"args = {json.dumps(args)}\nfile_types = [\"fix\"]")  # fmt: skip


def call(name: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=(ScriptedToolCall(name, arguments),))


def tool_result(server: ProviderServer, index: int) -> str:
    """The text of the tool result the model received in request ``index``."""
    block = server.requests[index].json["messages"][-1]["content"][0]
    assert block["type"] == "tool_result"
    content = block["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def lsp_of(session: Session) -> LspExtension:
    return next(e for e in session.extensions if isinstance(e, LspExtension))


async def open_chat(project: Path) -> Session:
    return await Session.open(SessionOptions(project=project, approvals=FixedApprovals(True)))


async def test_basedpyright_read_rules_and_errors_after_a_real_edit(
    tmp_path: Path, zengine_home: Path
) -> None:
    require_language_server("basedpyright-langserver", "pip install basedpyright")
    project = tmp_path / "proj"
    shutil.copytree(FIXTURES / "lsp_project", project)
    async with ProviderServer() as server:
        deny = '[permissions]\ndeny = ["Read(shapes.py)"]'
        (zengine_home / "settings.toml").write_text(settings(server, deny))
        session = await open_chat(project)
        lsp = lsp_of(session)
        try:
            # item 2: a Read deny rule makes the LSP tool refuse the file, before any start
            server.add(call("LSP", operation="hover", path="shapes.py", line=13, column=7),
                       Reply(text=("refused",)))  # fmt: skip
            assert (await session.submit("hover Square")).text == "refused"
            assert tool_result(server, 1) == "Not run: denied by the rule Read(shapes.py)."
            assert lsp.manager.starts("basedpyright") == 0

            edit = {"path": "main.py", "old_string": "    return total_area(build())\n",
                    "new_string": "    return total_area(build())\n\n\n"
                                  "value: int = 'text'\nvalue + 1\n"}  # fmt: skip
            server.add(
                call("LSP", operation="references", path="main.py", line=9, column=12),
                call("LSP", operation="diagnostics", path="main.py"),
                call(
                    "LSP",
                    operation="rename_preview",
                    path="main.py",
                    line=9,
                    column=12,
                    new_name="sum_areas",
                ),
                call("Read", path="main.py"),
                call("Edit", **edit),
                call("LSP", operation="diagnostics", path="main.py"),
                Reply(text=("done",)),
            )
            outcome = await session.submit("check main.py, then break it")
            assert outcome.status == "completed", outcome.reason
            references = tool_result(server, 3)
            assert "main.py:1:" in references
            assert "main.py:9:" in references
            assert "shapes.py" not in references  # its lines are under the deny rule
            assert "result(s) in files that Read rules deny were left out" in references
            assert tool_result(server, 4) == "basedpyright: no diagnostics in main.py"
            renamed = tool_result(server, 5)  # it would change shapes.py too: no diff shown
            assert renamed.startswith("The rename would also change 1 file(s) that Read rules")
            assert "shapes.py" not in renamed
            # item 4: the error introduced by Edit is in the result the model received
            edited = tool_result(server, 7)
            assert edited.startswith("Edited main.py")
            assert "basedpyright reports 1 error(s) in main.py:" in edited
            assert "main.py:12:14: error: " in edited
            assert "warning" not in edited
            assert "unused" not in edited.lower()
            after = tool_result(server, 8)  # the warning exists: the Edit result left it out
            assert "main.py:13:1: warning: " in after
            assert "main.py:12:14: error: " in after

            status = await session.submit("/lsp")
            assert re.search(r"^basedpyright +ready ", status.text, re.MULTILINE)
            assert "pid " in status.text
            rows = {row.name: row for row in lsp.manager.status()}
            pid = rows["basedpyright"].pid
            assert pid is not None
        finally:
            manager = lsp.manager
            await session.aclose()
    assert rows["basedpyright"].state == "ready"
    assert {r.state for r in manager.status() if r.name == "basedpyright"} == {"stopped"}
    await wait_until(lambda: process_gone(pid), timeout_s=5)


async def test_errors_only_at_most_twenty_lines_after_a_background_start(
    tmp_path: Path, zengine_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    async with ProviderServer() as server:
        (zengine_home / "settings.toml").write_text(settings(server, fixture_server()))
        session = await open_chat(project)
        lsp = lsp_of(session)
        try:
            server.add(call("Write", path="a.fix", content="clean\n"), Reply(text=("ok",)))
            await session.submit("write it")
            assert tool_result(server, 1) == "Created a.fix (1 lines)"  # not running: nothing added
            code = project / "a.fix"
            # started in the background, then the written file is opened for later writes
            await wait_until(lambda: (c := lsp.manager.running_client(code)) is not None
                             and c.published(code) is not None)  # fmt: skip
            broken = "".join(f"ERROR {i}\nWARN {i}\n" for i in range(25))
            server.add(call("Edit", path="a.fix", old_string="clean\n", new_string=broken),
                       Reply(text=("ok",)))  # fmt: skip
            await session.submit("break it")
        finally:
            await session.aclose()
    lines = tool_result(server, 3).splitlines()
    assert lines[0].startswith("Edited a.fix")
    head = lines.index("fixture reports 25 error(s) in a.fix:")
    errors = lines[head + 1 : -1]
    assert len(errors) == MAX_ERROR_LINES
    assert errors[0] == "a.fix:1:1: error: fixture error on line 1"
    assert all(": error: " in line for line in errors)
    assert lines[-1] == "... and 5 more error(s)"
    assert not [line for line in lines if "warn" in line.lower()]


async def test_a_write_while_the_server_indexes_returns_without_waiting(
    tmp_path: Path, zengine_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.fix").write_text("clean\n")
    async with ProviderServer() as server:
        options = fixture_server("--index-s", "30")
        (zengine_home / "settings.toml").write_text(settings(server, options))
        session = await open_chat(project)
        lsp = lsp_of(session)
        code = project / "a.fix"
        try:
            server.add(call("LSP", operation="diagnostics", path="a.fix"),
                       call("Read", path="a.fix"), Reply(text=("ok",)))  # fmt: skip
            await session.submit("look")
            assert tool_result(server, 1) == "fixture: no diagnostics in a.fix"
            client = lsp.manager.running_client(code)
            assert client is not None
            # its "indexing" progress report may still be on its way under load
            await wait_until(lambda: client.busy, timeout_s=10)
            server.add(call("Edit", path="a.fix", old_string="clean", new_string="ERROR"),
                       Reply(text=("ok",)))  # fmt: skip
            started = time.monotonic()
            await session.submit("break it")
            elapsed = time.monotonic() - started
            status = await session.submit("/lsp")
            pid = client.peer.pid
        finally:
            await session.aclose()
    # had it waited, the fixture (which answers at once) would have reported the error
    edited = tool_result(server, 4)
    assert edited.startswith("Edited a.fix")
    assert "fixture reports" not in edited
    assert elapsed < WAIT  # the whole turn, two model requests included
    assert re.search(r"^fixture +indexing ", status.text, re.MULTILINE)
    assert "Indexing" in status.text
    await wait_until(lambda: process_gone(pid), timeout_s=5)


async def test_project_servers_wait_for_trust_and_nothing_starts_up_front(
    tmp_path: Path, zengine_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".z-engine").mkdir(parents=True)
    (project / ".z-engine" / "settings.toml").write_text(fixture_server() + "\n")
    async with ProviderServer() as server:
        (zengine_home / "settings.toml").write_text(settings(server))
        session = await open_chat(project)
        lsp = lsp_of(session)
        try:
            rows = lsp.manager.status()
            assert "fixture" not in [r.name for r in rows]  # withheld while untrusted
            assert {r.state for r in rows} <= {"not_started", "not_installed"}
            assert "LSP" in session.tools
            assert session.tools["LSP"].kind == "read"
            assert "lsp" in session.commands
            await session.submit("/trust")
            shown = (await session.submit("/lsp")).text
            assert "fixture" in shown
            assert "not started" in shown
            assert "[lsp.servers]" in shown
            assert lsp.manager.starts("fixture") == 0
        finally:
            await session.aclose()


def test_settings_entries_become_manager_entries() -> None:
    python = sys.executable
    parsed = Settings.model_validate({"lsp": {"servers": {"mine": {
        "command": python, "args": ["-m", "x"], "file_types": ["foo", ".bar"],
        "initialization_options": {"a": 1}}}}})  # fmt: skip
    (entry,) = lsp_entries(parsed)
    assert (entry.name, entry.command, entry.args) == ("mine", python, ("-m", "x"))
    assert entry.file_types == ("foo", ".bar")
    assert entry.initialization_options == {"a": 1}


async def test_a_missing_server_is_a_clear_answer_and_not_retried(
    tmp_path: Path, zengine_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.nope").write_text("x\n")
    missing = '[lsp.servers.missing]\ncommand = "zengine-no-such-language-server"\n'
    missing += 'file_types = ["nope"]'
    async with ProviderServer() as server:
        (zengine_home / "settings.toml").write_text(settings(server, missing))
        session = await open_chat(project)
        try:
            hover = call("LSP", operation="hover", path="a.nope")
            edit = call("Edit", path="a.nope", old_string="x", new_string="y")
            server.add(hover, call("Read", path="a.nope"), edit, hover, Reply(text=("ok",)))
            await session.submit("ask twice")
            assert lsp_of(session).manager.starts("missing") == 0
        finally:
            await session.aclose()
    first, edited, second = tool_result(server, 1), tool_result(server, 3), tool_result(server, 4)
    assert first.startswith("missing is not installed (needed for .nope files)")
    assert second == first
    assert "install it and make sure it is on PATH" in first
    assert edited == "Edited a.nope: replaced 1 occurrence (from line 1)"  # nothing added


async def test_a_slow_server_holds_an_edit_for_about_wait_at_most(
    tmp_path: Path, zengine_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    code = project / "a.fix"
    async with ProviderServer() as server:
        slow = fixture_server("--change-delay", str(WAIT * 5))  # answers edits after 10 s
        (zengine_home / "settings.toml").write_text(settings(server, slow))
        session = await open_chat(project)
        lsp = lsp_of(session)
        try:
            server.add(call("Write", path="a.fix", content="clean\n"), Reply(text=("ok",)))
            await session.submit("write it")
            await wait_until(lambda: (c := lsp.manager.running_client(code)) is not None
                             and c.published(code) is not None)  # fmt: skip
            server.add(call("Edit", path="a.fix", old_string="clean", new_string="ERROR"),
                       Reply(text=("ok",)))  # fmt: skip
            started = time.monotonic()
            await session.submit("break it")
            elapsed = time.monotonic() - started
        finally:
            await session.aclose()
    assert "fixture reports" not in tool_result(server, 3)
    assert elapsed >= WAIT * 0.9  # it waited for the server that had analysed the file...
    assert elapsed < WAIT * 2  # ...but not for the 5 x WAIT it needed
