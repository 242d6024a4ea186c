"""The records a view is rebuilt from (issue 20): a tool result's diff and the verification
badge are in the log, written only when there is something to write, and logs from before
they existed still load."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from zengine_jupyter.protocol import (
    ToolResultRecord,
    VerificationRecord,
)
from zengine_jupyter.store import SessionStore
from zengine_jupyter.store._lines import record_line, validate_line

if TYPE_CHECKING:
    from pathlib import Path

DIFF = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-RATE = 1\n+RATE = 2\n"


def test_a_tool_result_line_has_a_diff_only_when_the_tool_made_one() -> None:
    plain = json.loads(record_line(ToolResultRecord(tool_call_id="c1", name="Read", output="x")))
    assert "diff" not in plain  # no `"diff": null` on every non-edit result
    edit = ToolResultRecord(tool_call_id="c2", name="Edit", output="ok", diff=DIFF)
    line = record_line(edit)
    assert json.loads(line)["diff"] == DIFF
    assert validate_line(line) == edit


def test_an_old_tool_result_line_without_a_diff_still_loads() -> None:
    old = (
        b'{"id":"r1","ts":"2026-01-01T00:00:00Z","kind":"tool_result","tool_call_id":"c1",'
        b'"name":"Edit","output":"ok","is_error":false,"artifact":null,"repair":false}'
    )
    record = validate_line(old)
    assert isinstance(record, ToolResultRecord)
    assert record.diff is None


def test_a_verification_record_round_trips_and_replay_keeps_it(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer = store.create(project=tmp_path)
    badge = VerificationRecord(badge="verified", reason="1 check passed", turn_id="t1")
    writer.append(badge)
    writer.append(ToolResultRecord(tool_call_id="c1", name="Edit", output="ok", diff=DIFF))
    writer.close()
    snapshot = store.read(writer.id)
    assert badge in snapshot.state.transcript  # read back as itself, not as an unknown record
    (result,) = [r for r in snapshot.state.transcript if isinstance(r, ToolResultRecord)]
    assert result.diff == DIFF
    assert snapshot.state.working_set == (result,)  # the badge is not part of the model's view
