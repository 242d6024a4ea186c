"""The approval prompt of Write, Edit and NotebookEdit shows the diff the result will carry:
a unified diff with ``@@`` hunks and context against the file's current content (not the
whole file as new, not a header-less pair of old and new strings); a denied edit's event
carries it too. Through the local provider server, a real session and real files."""

from __future__ import annotations

import json
from pathlib import Path

from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.protocol import EngineEvent, ToolCallDenied, ToolCallFinished
from zengine_jupyter.testing import (
    RecordingApprovals,
    Reply,
    ScriptedToolCall,
    configured_provider,
)

LINES = [f"value_{n} = {n}\n" for n in range(1, 21)]


def _notebook(path: Path) -> None:
    """A valid nbformat 4.5 notebook with two cells (ids ``first`` and ``second``)."""
    cells = [
        {"cell_type": "code", "id": "first", "metadata": {}, "source": "x = 1",
         "outputs": [], "execution_count": None},
        {"cell_type": "markdown", "id": "second", "metadata": {}, "source": "# Notes"},
    ]  # fmt: skip
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(notebook, indent=1) + "\n")


def _call(tool: str, **arguments: object) -> Reply:
    return Reply(tool_calls=(ScriptedToolCall(tool, arguments),))


async def _turn(
    project: Path, zengine_home: Path, replies: list[Reply], approvals: RecordingApprovals
) -> list[EngineEvent]:
    async with configured_provider(zengine_home) as server:
        server.add(*replies, Reply(text=("done",)))
        session = await Session.open(SessionOptions(project=project, approvals=approvals))
        events = session.subscribe()
        outcome = await session.submit("change the files")
        await session.aclose()
    assert outcome.status == "completed", outcome.reason
    return [event async for event in events]


async def test_the_prompt_shows_the_results_diff_for_write_edit_and_notebook_edit(
    project: Path, zengine_home: Path
) -> None:
    (project / "values.py").write_text("".join(LINES))
    _notebook(project / "nb.ipynb")
    rewritten = "".join(LINES).replace("value_10 = 10", "value_10 = 100")
    replies = [
        _call("Read", path="values.py"),
        _call("Write", path="values.py", content=rewritten),  # over an existing file
        _call("Edit", path="values.py", old_string="value_15 = 15", new_string="value_15 = 0"),
        _call("Read", path="nb.ipynb"),
        _call("NotebookEdit", path="nb.ipynb", cell_id="first", source="x = 2"),
        _call("NotebookEdit", path="nb.ipynb", mode="insert", cell_id="second", source="y = 3"),
    ]
    approvals = RecordingApprovals(default="allow_once")
    seen = await _turn(project, zengine_home, replies, approvals)

    finished = {e.call_id: e for e in seen if isinstance(e, ToolCallFinished)}
    asked = [(r.tool, r.diff, finished[r.call_id].diff) for r in approvals.asked]
    assert [tool for tool, _, _ in asked] == ["Write", "Edit", "NotebookEdit", "NotebookEdit"]
    for tool, prompt, result in asked:
        assert result is not None, tool
        assert "@@ " in result, tool
        assert prompt == result, tool
    write = asked[0][1] or ""
    assert "-value_10 = 10\n+value_10 = 100\n" in write
    assert " value_9 = 9\n" in write  # context, not the whole file as new
    assert "+value_1 = 1\n" not in write
    assert write.startswith("--- a/values.py\n+++ b/values.py\n@@ -7,7 +7,7 @@")


async def test_a_denied_edit_carries_the_diff_it_would_have_made(
    project: Path, zengine_home: Path
) -> None:
    (project / "values.py").write_text("".join(LINES))
    replies = [
        _call("Read", path="values.py"),
        _call("Edit", path="values.py", old_string="value_3 = 3", new_string="value_3 = 33"),
    ]
    approvals = RecordingApprovals({"Edit": "deny"})
    seen = await _turn(project, zengine_home, replies, approvals)

    denied = [e for e in seen if isinstance(e, ToolCallDenied)]
    assert len(denied) == 1
    assert denied[0].by == "user"
    assert denied[0].diff == approvals.asked[0].diff
    assert (denied[0].diff or "").startswith("--- a/values.py\n+++ b/values.py\n@@ -1,6 +1,6 @@")
    assert "-value_3 = 3\n+value_3 = 33\n" in (denied[0].diff or "")
    assert (project / "values.py").read_text() == "".join(LINES)


async def test_a_call_that_would_fail_is_asked_without_a_diff(
    project: Path, zengine_home: Path
) -> None:
    """No preview is invented: an Edit whose old_string is not in the file asks with no
    diff, and its result is the tool's own error."""
    (project / "values.py").write_text("".join(LINES))
    replies = [
        _call("Read", path="values.py"),
        _call("Edit", path="values.py", old_string="no such text", new_string="x"),
    ]
    approvals = RecordingApprovals(default="allow_once")
    seen = await _turn(project, zengine_home, replies, approvals)
    assert [r.diff for r in approvals.asked] == [None]
    finished = [e for e in seen if isinstance(e, ToolCallFinished)]
    assert finished[-1].is_error
    assert "was not found" in finished[-1].output
