"""The panel's comm against a real kernel and the local provider server: subscribe, submit,
approvals from either view, rewind, reconnect after a restart, the lists and commands.

Every message the kernel sends is validated against ``KernelMessage`` by ``PanelClient``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.protocol import (
    ApprovalAnswer,
    ApprovalDecision,
    ApprovalRequested,
    CommandRequest,
    EventMessage,
    MessageRecord,
    Reply,
    RewindRequest,
    Snapshot,
    SubmitRequest,
    SubscribeRequest,
    TurnEnded,
)
from zengine_jupyter.testing import ProviderServer, ScriptedToolCall
from zengine_jupyter.testing import Reply as Scripted
from zengine_jupyter.testing.kernel import KernelHarness, events_of, has_event, widget_id
from zengine_jupyter.testing.panel import PanelClient, event_kinds, events

pytestmark = pytest.mark.e2e

EDIT = {"path": "pipeline.py", "old_string": "RATE = 1", "new_string": "RATE = 2"}


def _script_edit(server: ProviderServer, done: str = "Done: RATE is 2.") -> None:
    server.add(
        Scripted(text=("Let me look.",),
                 tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),)),
        Scripted(tool_calls=(ScriptedToolCall("Edit", EDIT),)),
        Scripted(text=(done,)),
    )  # fmt: skip


def _approval(messages: list[object]) -> str:
    (asked,) = [e for e in events(messages) if isinstance(e, ApprovalRequested)]
    assert asked.request.tool == "Edit"
    return asked.request.id


def test_panel_submits_approves_and_rewinds(
    kernel: KernelHarness, project: Path, server: ProviderServer
) -> None:
    panel = PanelClient(kernel)
    assert panel.open().kind == "hello"

    # no chat yet: an empty snapshot, then the reply
    subscribed = panel.exchange(SubscribeRequest(id="s1"))
    assert [m.kind for m in subscribed] == ["snapshot", "reply"]
    assert subscribed[0] == Snapshot(id="s1", session_id="")
    assert subscribed[1] == Reply(id="s1", ok=True)

    _script_edit(server)
    submitted = panel.request(SubmitRequest(id="t1", text="Set RATE to 2"))
    assert submitted.ok, submitted
    assert submitted.turn_id
    # the comm follows the chat the submit opened: its snapshot, then the turn live
    asked = panel.until_event("approval_requested")
    assert isinstance(asked[0], Snapshot)
    assert asked[0].id is None
    sid = asked[0].session_id
    assert sid
    started = events(asked)[[e.kind for e in events(asked)].index("turn_started")]
    assert started.turn_id == submitted.turn_id
    assert "".join(e.text for e in events(asked) if e.kind == "text_streamed") == "Let me look."
    request_id = _approval(asked)
    assert (project / "pipeline.py").read_text().startswith("RATE = 1")

    answer = ApprovalAnswer(id="a1", request_id=request_id,
                            decision=ApprovalDecision(action="allow_once"))  # fmt: skip
    assert panel.request(answer) == Reply(id="a1", ok=True)
    rest = panel.until_event("turn_ended")
    kinds = event_kinds(rest)
    assert kinds.index("tool_call_approved") < kinds.index("tool_call_finished")
    assert "verification_changed" in kinds
    (ended,) = [e for e in events(rest) if isinstance(e, TurnEnded)]
    assert (ended.status, ended.turn_id) == ("completed", submitted.turn_id)
    assert (project / "pipeline.py").read_text() == "RATE = 2\nprint('rate', RATE)\n"

    # the same question again: refused plainly
    again = panel.request(answer.model_copy(update={"id": "a2"}))
    assert not again.ok
    assert "already answered" in (again.error or "")

    # rewind the code: the file is back and the reply says which files it restored
    rewound = panel.request(RewindRequest(id="w1", turn_id=submitted.turn_id, scope="code"))
    assert rewound.ok, rewound
    assert rewound.restore is not None
    assert rewound.restore.restored == ["pipeline.py"]
    assert (project / "pipeline.py").read_text() == "RATE = 1\nprint('rate', RATE)\n"

    # rewind the conversation: the Rewound event, then a fresh unprompted snapshot without it
    rewound = panel.request(RewindRequest(id="w2", turn_id=submitted.turn_id, scope="conversation"))
    assert rewound.ok, rewound
    assert rewound.restore is None
    after = panel.read(lambda m: isinstance(m, Snapshot))
    assert isinstance(after[-2], EventMessage)
    assert after[-2].event.kind == "rewound"
    assert after[-1].session_id == sid
    assert not [r for r in after[-1].records if isinstance(r, MessageRecord)]


def test_agent_cell_turn_is_live_on_the_comm_and_either_view_answers(
    kernel: KernelHarness, project: Path, server: ProviderServer
) -> None:
    panel = PanelClient(kernel)
    panel.open()
    assert panel.request(SubscribeRequest(id="s1")).ok

    _script_edit(server)
    cell = kernel.execute("%%agent\nSet RATE to 2\n")
    assert cell.status == "ok", cell.text
    model_id = widget_id(cell)
    asked = panel.until_event("approval_requested")
    assert isinstance(asked[0], Snapshot)
    request_id = _approval(asked)
    widget_asked = kernel.widget_messages(model_id, has_event("approval_requested"))
    assert [e["request"]["id"] for e in events_of(widget_asked)
            if e["kind"] == "approval_requested"] == [request_id]  # fmt: skip

    # one turn at a time per chat, whichever view started it
    busy = panel.request(SubmitRequest(id="t2", text="and another thing"))
    assert not busy.ok
    assert "already running" in (busy.error or "")
    assert busy.hint
    # commands that never start a turn run beside it, and refuse what a turn forbids
    cost = panel.request(CommandRequest(id="c1", name="cost"))
    assert (cost.text or "").startswith("cost so far:")
    model = panel.request(CommandRequest(id="c2", name="model", args="claude-opus-4-1"))
    assert not model.ok
    assert "cannot change during a turn" in (model.error or "")

    # answered in the panel (over a subshell, as JupyterLab sends it): the cell's turn goes on
    panel.subshell = kernel.create_subshell()
    answer = ApprovalAnswer(id="a1", request_id=request_id,
                            decision=ApprovalDecision(action="allow_once"))  # fmt: skip
    assert panel.request(answer).ok
    done = events_of(kernel.widget_messages(model_id, has_event("turn_result")))
    assert [e["by"] for e in done if e["kind"] == "tool_call_approved"] == ["user"]
    assert [e["status"] for e in done if e["kind"] == "turn_result"] == ["completed"]
    assert (project / "pipeline.py").read_text().startswith("RATE = 2")
    panel.until_event("turn_ended")

    # and the other way: answered by the widget, the panel sees the approval
    server.add(
        Scripted(tool_calls=(ScriptedToolCall("Bash", {"command": "echo hi"}),)),
        Scripted(text=("ok",)),
    )
    second = kernel.execute("%%agent\nsay hi\n")
    second_id = widget_id(second)
    asked = panel.until_event("approval_requested")
    request_id = next(e for e in events(asked) if isinstance(e, ApprovalRequested)).request.id
    kernel.send_widget_message(second_id, {"v": 1, "kind": "approval_answer", "id": "click-1",
                                           "request_id": request_id,
                                           "decision": {"action": "allow_once"}})  # fmt: skip
    seen = panel.until_event("turn_ended")
    approved = [e for e in events(seen) if e.kind == "tool_call_approved"]
    assert [e.by for e in approved] == ["user"]
    late = panel.request(answer.model_copy(update={"id": "a2", "request_id": request_id}))
    assert not late.ok

    # the panel subscribed to the kernel's current chat: it follows `%%agent --new` there
    sid = approved[0].session_id
    server.add(Scripted(text=("A new chat.",)))
    kernel.execute("%%agent --new\nstart over\n")
    moved = panel.until_event("turn_ended")
    assert isinstance(moved[0], Snapshot)
    assert moved[0].id is None
    assert moved[0].session_id not in ("", sid)
    assert {e.session_id for e in events(moved)} == {moved[0].session_id}
