"""``zengine sessions list|show|repair``, run as a user would run them."""

from __future__ import annotations

import json
from pathlib import Path

from zengine_jupyter.protocol import (
    MessageRecord,
    RecordedToolCall,
    TurnStartRecord,
    UsageRecord,
)
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import run_cli_sync


def _crashed_chat(home: Path) -> Path:
    store = SessionStore()
    writer = store.create(project="/work/p", session_id="demo")
    writer.append(TurnStartRecord(turn_id="t1"))
    writer.append(MessageRecord(role="user", text="Run the tests"))
    call = RecordedToolCall(id="c1", name="Bash", input={"command": "pytest"})
    writer.append(MessageRecord(role="assistant", text="Running.", tool_calls=(call,)))
    writer.append(UsageRecord(cost_usd=0.5))
    writer.close()
    log = home / "sessions" / "demo" / "log.jsonl"
    with log.open("ab") as f:
        f.write(b"not json at all\n")
        f.write(b'{"id":"x","kind":"mess')  # killed mid-line
    (home / "sessions" / "old.jsonl").write_bytes(b'{"type": "user", "content": "v1 hello"}\n')
    return log


def test_list_show_and_repair(zengine_home: Path) -> None:
    log = _crashed_chat(zengine_home)

    listed = run_cli_sync("sessions", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    by_id = {m["id"]: m for m in json.loads(listed.stdout)}
    assert by_id["demo"]["cost_usd"] == 0.5
    assert (by_id["old"]["format"], by_id["old"]["title"]) == ("v1", "v1 hello")
    assert "[v1]" in run_cli_sync("sessions", "list").stdout

    before = log.read_bytes()
    shown = run_cli_sync("sessions", "show", "demo")
    assert shown.returncode == 0, shown.stderr
    assert "> Run the tests" in shown.stdout
    assert '-> Bash {"command": "pytest"}' in shown.stdout
    assert "skipped lines: 1 damaged" in shown.stdout
    assert "partial last line" in shown.stdout
    assert log.read_bytes() == before  # show is read-only

    repaired = run_cli_sync("sessions", "repair", "demo", "--json")
    assert repaired.returncode == 0, repaired.stderr
    report = json.loads(repaired.stdout)
    assert report["cut_bytes"] == len(b'{"id":"x","kind":"mess')
    assert [s["line"] for s in report["skipped"]] == [5 + 1]
    assert [r["kind"] for r in report["repairs"]] == ["tool_result", "turn_end"]

    again = run_cli_sync("sessions", "repair", "demo")
    assert again.returncode == 0
    assert "line 6: skipped (damaged)" in again.stdout  # still reported, never silent
    assert "appended" not in again.stdout

    records = json.loads(run_cli_sync("sessions", "show", "demo", "--json").stdout)["transcript"]
    assert records[-1]["kind"] == "turn_end"
    assert records[-1]["status"] == "interrupted"


def test_repair_of_a_chat_open_elsewhere_fails_clearly(zengine_home: Path) -> None:
    with SessionStore().create(session_id="busy"):
        done = run_cli_sync("sessions", "repair", "busy")
    assert done.returncode == 1
    assert "already open for writing" in done.stderr
    missing = run_cli_sync("sessions", "show", "nope")
    assert missing.returncode == 1
    assert "no chat 'nope'" in missing.stderr
