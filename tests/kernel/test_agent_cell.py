"""Acceptance 1: an ``%%agent`` cell in a real kernel returns at once, the notebook stays usable,
the approval arrives as a widget message and the frontend's answer lets the edit happen."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall
from zengine_jupyter.testing.kernel import KernelHarness, events_of, has_event, widget_id

pytestmark = pytest.mark.e2e


def test_agent_cell_edits_a_file_after_a_click(
    kernel: KernelHarness, project: Path, server: ProviderServer
) -> None:
    server.add(
        Reply(text=("Let me look.",),
              tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),)),
        Reply(tool_calls=(ScriptedToolCall(
            "Edit", {"path": "pipeline.py", "old_string": "RATE = 1", "new_string": "RATE = 2"}),)),
        Reply(text=("Done: **RATE** is 2 now.",)),
    )  # fmt: skip
    cell = kernel.execute("%%agent\nSet RATE to 2\n")
    assert cell.status == "ok", cell.text
    assert "Traceback" not in cell.text
    model_id = widget_id(cell)

    # the turn is waiting for a click that has not been sent: this cell runs during it
    other = kernel.execute("x = 40 + 2\nprint(x)")
    assert other.status == "ok"
    assert other.text.strip() == "42"

    asked = kernel.widget_messages(model_id, has_event("approval_requested"))
    (request,) = [e["request"] for e in events_of(asked) if e["kind"] == "approval_requested"]
    assert request["tool"] == "Edit"
    assert request["paths"] == ["pipeline.py"]
    assert (project / "pipeline.py").read_text().startswith("RATE = 1")
    text = "".join(e["text"] for e in events_of(asked) if e["kind"] == "text_streamed")
    assert text == "Let me look."

    # JupyterLab 4.6 sends widget messages over a kernel subshell: another thread, another loop
    subshell = kernel.create_subshell()
    kernel.send_widget_message(model_id, {"v": 1, "kind": "approval_answer", "id": "click-1",
                                          "request_id": request["id"],
                                          "decision": {"action": "allow_once"}},
                               subshell_id=subshell)  # fmt: skip
    rest = kernel.widget_messages(model_id, has_event("turn_result"))
    replies = [m for m in rest if m.get("kind") == "reply"]
    assert replies == [{"v": 1, "kind": "reply", "id": "click-1", "ok": True}]
    events = events_of(rest)
    finished = [e for e in events if e["kind"] == "tool_call_finished"]
    assert "+RATE = 2" in (finished[-1]["diff"] or "")
    (result,) = [e for e in events if e["kind"] == "turn_result"]
    assert result["status"] == "completed"
    assert result["text"] == "Done: **RATE** is 2 now."
    assert result["changed"] == ["pipeline.py"]
    assert [e["status"] for e in events if e["kind"] == "turn_ended"] == ["completed"]
    assert (project / "pipeline.py").read_text() == "RATE = 2\nprint('rate', RATE)\n"

    # a second click on the answered question is refused, plainly
    kernel.send_widget_message(model_id, {"v": 1, "kind": "approval_answer", "id": "click-2",
                                          "request_id": request["id"],
                                          "decision": {"action": "allow_once"}})  # fmt: skip
    (late,) = kernel.widget_messages(model_id, lambda m: m.get("kind") == "reply")
    assert late["ok"] is False
    assert "already answered" in late["error"]

    # a view that opens later (a page reload) gets the whole turn again
    kernel.send_widget_message(model_id, {"v": 1, "kind": "replay", "id": "r1"})
    (replay,) = kernel.widget_messages(model_id, lambda m: m.get("replay") is True)
    assert [e["kind"] for e in replay["events"]][-1] == "turn_result"


def test_slash_command_line_magic_and_kernel_tool(
    kernel: KernelHarness, server: ProviderServer
) -> None:
    setup = kernel.execute(
        "rows = [1, 2, 3]\nclass Odd:\n    def __repr__(self):\n"
        "        raise RuntimeError('user code ran')\nodd = Odd()"
    )
    assert setup.status == "ok", setup.text
    server.add(
        Reply(
            tool_calls=(ScriptedToolCall("KernelVariables", {"names": ["rows", "odd", "missing"]}),)
        ),
        Reply(text=("rows has three items.",)),
    )
    cell = kernel.execute("%%agent\nWhat is in rows?\n")
    events = events_of(kernel.widget_messages(widget_id(cell), has_event("turn_result")))
    (finished,) = [e for e in events if e["kind"] == "tool_call_finished"]
    assert finished["is_error"] is False
    assert finished["output"].splitlines() == [
        "rows: list length 3 of 3 int",
        "odd: __main__.Odd",
        "missing: not defined",
    ]

    sid = events[0]["session_id"]
    server.add(Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "true"}),)))
    waiting = kernel.execute(f"%%agent --session {sid}\nrun true\n")
    waiting_id = widget_id(waiting)
    asked = events_of(kernel.widget_messages(waiting_id, has_event("approval_requested")))
    assert asked[-1]["session_id"] == sid
    kernel.send_widget_message(waiting_id, {"v": 1, "kind": "interrupt", "id": "stop-1"})
    stopped = events_of(kernel.widget_messages(waiting_id, has_event("turn_result")))
    assert [e["status"] for e in stopped if e["kind"] == "turn_result"] == ["interrupted"]

    cost = kernel.execute("%agent /mode plan")
    notices = events_of(kernel.widget_messages(widget_id(cost), has_event("turn_result")))
    assert any(e["kind"] == "notice" and e["text"] == "mode: plan" for e in notices)
    assert len(server.requests) == 3  # slash commands never reach the model
