"""Issues 19.2 and 18.11: a malformed tool call from the model becomes that tool's error result;
the model sees it and the turn goes on. Nothing raises out of the turn, and what cannot be
encoded is stored escaped, never dropped.

Real parts: the local provider server speaks the Anthropic wire format over HTTP, the real gate
decides (``--yes`` answers its questions), the real store journals, and the log is replayed.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.protocol import MessageRecord, ToolResultRecord
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import (
    ZENGINE,
    Reply,
    ScriptedToolCall,
    configured_provider,
)


async def _turn_with(
    project: Path, home: Path, calls: list[tuple[str, dict[str, Any]]]
) -> tuple[str, list[ToolResultRecord], list[Any]]:
    """One turn where the model makes ``calls`` then says "done"; the outcome's status, the
    results and every record, as the log replays after the chat closes."""
    async with configured_provider(home) as server:
        server.add(
            Reply(tool_calls=tuple(ScriptedToolCall(name, args) for name, args in calls)),
            Reply(text=("done",)),
        )
        session = await Session.open(
            SessionOptions(project=project, approvals=FixedApprovals(allow=True))
        )
        try:
            outcome = await asyncio.wait_for(session.submit("go"), 60)
        finally:
            await session.aclose()
        assert len(server.requests) == 2, "the turn must go on after the bad call"
        assert outcome.text == "done"
    writer = SessionStore().open(session.id)
    try:
        assert writer.report.skipped == ()
        everything = _records(writer.log_path)
    finally:
        writer.close()
    results = [r for r in everything if isinstance(r, ToolResultRecord)]
    return outcome.status, results, everything


def _records(log: Path) -> list[Any]:
    from zengine_jupyter.store import scan_file

    scan = scan_file(log)
    assert scan.skipped == [], scan.skipped
    return list(scan.records)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "data.txt").write_text("a file, not a folder\n")
    return root


async def test_write_with_a_lone_surrogate_is_an_error_result_and_is_stored_escaped(
    project: Path, zengine_home: Path
) -> None:
    """Attack: Write content `"a\\ud800b"` (a JSON escape of a lone surrogate) made the store's
    append raise PydanticSerializationError: rc 1, and even the assistant message was lost."""
    status, results, records = await _turn_with(
        project, zengine_home, [("Write", {"path": "out.txt", "content": "a\ud800b"})]
    )
    assert status == "completed"
    (result,) = results
    assert result.is_error
    assert "Unicode" in result.output
    assert not (project / "out.txt").exists()
    (assistant,) = [r for r in records if isinstance(r, MessageRecord) and r.tool_calls]
    assert assistant.tool_calls[0].input["content"] == "a\\ud800b"  # kept, visibly escaped


@pytest.mark.parametrize(
    ("path", "why", "said"),
    [
        ("a\x00b.txt", "NUL in a path: ValueError out of the gate's resolve", "NUL"),
        ("x" * 300 + ".txt", "a 300-character file name: ENAMETOOLONG", "too long"),
        ("data.txt/inside.txt", "a parent that is a file: an OSError out of Write", "is a file"),
    ],
)
async def test_write_to_an_impossible_path_is_an_error_result(
    project: Path, zengine_home: Path, path: str, why: str, said: str
) -> None:
    """Attack: Write under an impossible path (NUL, too long a name, a parent that is a file)
    raised out of the turn (rc 1, a 52-line traceback) instead of answering the model."""
    status, results, _ = await _turn_with(
        project, zengine_home, [("Write", {"path": path, "content": "x"})]
    )
    assert status == "completed", why
    (result,) = results
    assert result.is_error, why
    assert said in result.output, result.output  # what is wrong, in the tool's own words
    assert (project / "data.txt").read_text() == "a file, not a folder\n"


async def test_every_file_tool_answers_a_nul_path(project: Path, zengine_home: Path) -> None:
    """Attack: a NUL in the path of any file tool (Read, Edit, Glob, Grep, NotebookEdit) must
    not end the turn either: one bad call each, all answered, the turn completes."""
    nul = "a\x00b"
    calls = [
        ("Read", {"path": nul}),
        ("Edit", {"path": nul, "old_string": "a", "new_string": "b"}),
        ("Glob", {"pattern": "*", "path": nul}),
        ("Grep", {"pattern": "x", "path": nul}),
        ("NotebookEdit", {"path": nul + ".ipynb", "new_source": "x", "cell_id": "c"}),
    ]
    status, results, _ = await _turn_with(project, zengine_home, calls)
    assert status == "completed"
    assert [r.name for r in results] == [name for name, _ in calls]
    assert all(r.is_error for r in results), [r.output for r in results]


async def test_zengine_run_survives_a_surrogate_and_a_nul_path(
    project: Path, zengine_home: Path
) -> None:
    """Attack, whole turn from a shell: the model Writes `"a\\ud800b"`, then to a path with a
    NUL; `zengine run --yes` used to end with rc 1 and a traceback."""
    async with configured_provider(zengine_home) as server:
        server.add(
            Reply(tool_calls=(
                ScriptedToolCall("Write", {"path": "s.txt", "content": "a\ud800b"}),
                ScriptedToolCall("Write", {"path": "n\x00.txt", "content": "x"}),
            )),
            Reply(text=("handled",)),
        )  # fmt: skip
        proc = await asyncio.create_subprocess_exec(
            ZENGINE, "run", "--yes", "write them", cwd=project, env=dict(os.environ),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(proc.communicate(), 90)
        assert proc.returncode == 0, err.decode()
        assert "Traceback" not in err.decode()
        assert out.decode().strip() == "handled"
        # the provider got both results back, as valid UTF-8 JSON
        sent = server.requests[-1].json["messages"][-1]["content"]
        assert [block["is_error"] for block in sent[:2]] == [True, True]
    (meta,) = SessionStore().list()
    log = SessionStore().open(meta.id)
    try:
        raw = log.log_path.read_bytes()
    finally:
        log.close()
    raw.decode("utf-8")  # the log is valid UTF-8
    records = _records(log.log_path)
    calls = [c for r in records if isinstance(r, MessageRecord) for c in r.tool_calls]
    assert calls[0].input["content"] == "a\\ud800b"
    assert calls[1].input["path"] == "n\x00.txt"
    assert json.dumps(calls[1].input)  # stored, not dropped


async def test_a_file_name_that_is_not_utf8_does_not_break_the_chat(
    project: Path, zengine_home: Path
) -> None:
    """Attack: a project file whose name is not UTF-8 (`b"\\xff.txt"`) reaches Glob's output as a
    surrogate (surrogateescape): the store could not append the result and the turn died."""
    os.close(os.open(bytes(project) + b"/\xff-odd.txt", os.O_CREAT | os.O_WRONLY, 0o644))
    status, results, _ = await _turn_with(project, zengine_home, [("Glob", {"pattern": "*"})])
    assert status == "completed"
    (result,) = results
    assert "\\udcff-odd.txt" in result.output  # shown escaped, not dropped


def test_the_log_keeps_a_lone_surrogate_exactly(tmp_path: Path) -> None:
    """Attack (store level): a record holding a lone surrogate was refused by the writer; it is
    now written as a JSON escape and read back as the same text, and the log stays UTF-8."""
    from zengine_jupyter.store import scan_bytes

    store = SessionStore()
    writer = store.create(project=tmp_path)
    text = "a\ud800b \udcff é"
    writer.append(MessageRecord(role="user", text=text))
    writer.close()
    data = (writer.folder / "log.jsonl").read_bytes()
    data.decode("utf-8")
    scan = scan_bytes(data)
    assert scan.skipped == []
    assert [r.text for r in scan.records if isinstance(r, MessageRecord)] == [text]
    reopened = store.open(writer.id)
    try:
        assert reopened.report.clean
    finally:
        reopened.close()
