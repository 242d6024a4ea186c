"""The widget labels a replayed turn: with no key, ``ZENGINE_CASSETTE`` set and nothing else,
an interactive ``%%agent`` cell plays the quickstart's recording, says so at the turn's start,
and the recorded denial path replays when the user clicks Deny."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.notebooks.recording import IGNORED, LIVE_VARS, NOTEBOOKS
from zengine_jupyter.testing.kernel import events_of, has_event, running_kernel, widget_id

pytestmark = pytest.mark.e2e


def test_interactive_replay_is_labelled_and_follows_the_click(tmp_path: Path) -> None:
    copy = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, copy, ignore=IGNORED)
    env = {k: v for k, v in os.environ.items() if k not in LIVE_VARS}
    env["ZENGINE_CASSETTE"] = "cassettes/quickstart.jsonl"
    with running_kernel(copy, env=env) as kernel:
        for var in set(LIVE_VARS) - {"ZENGINE_CASSETTE"}:  # the harness adds os.environ
            kernel.execute(f"import os; os.environ.pop({var!r}, None)")
        assert kernel.execute("%load_ext zengine").status == "ok"
        cell = kernel.execute(
            "%%agent --project greetings\n"
            "Add a shout(name) function to greet.py that returns the greeting in capitals.\n"
        )
        assert cell.status == "ok", cell.text
        model_id = widget_id(cell)
        asked = kernel.widget_messages(model_id, has_event("approval_requested"))
        events = events_of(asked)
        notices = [e["text"] for e in events if e["kind"] == "notice" and e["topic"] == "replay"]
        assert notices, events
        assert notices[0].startswith("replaying a recorded session from cassettes/quickstart.jsonl")
        (request,) = [e["request"] for e in events if e["kind"] == "approval_requested"]
        assert request["tool"] == "Edit"
        kernel.send_widget_message(model_id, {"v": 1, "kind": "approval_answer", "id": "c-1",
                                              "request_id": request["id"],
                                              "decision": {"action": "deny"}})  # fmt: skip
        rest = events_of(kernel.widget_messages(model_id, has_event("turn_result")))
    (result,) = [e for e in rest if e["kind"] == "turn_result"]
    assert result["status"] == "completed", rest
    assert result["text"].startswith("I was not allowed to edit greet.py")
    assert "shout" not in (copy / "greetings" / "greet.py").read_text()
