"""Malformed widget requests in a real kernel: each widget (status, turn, rewind) answers a
request it cannot parse with a typed failed reply (``WidgetReply``), acts on nothing, and the
kernel goes on; every state and message it sends validates against the wire models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from zengine_jupyter.protocol import StatusWidgetState, WidgetMessage, WidgetReply
from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall
from zengine_jupyter.testing.kernel import KernelHarness, events_of, has_event, widget_id

pytestmark = pytest.mark.e2e

_messages: TypeAdapter[Any] = TypeAdapter(WidgetMessage)


def _refusal(kernel: KernelHarness, model_id: str, request_id: str | None) -> WidgetReply:
    (*_, raw) = kernel.widget_messages(
        model_id, lambda m: m.get("kind") == "reply" and m.get("id") == request_id, 60
    )
    reply = _messages.validate_python(raw)
    assert isinstance(reply, WidgetReply)
    assert reply.ok is False
    return reply


def test_a_malformed_trust_answer_is_refused_and_trusts_nothing(
    kernel: KernelHarness, project: Path, zengine_home: Path
) -> None:
    """Before the typed wire, ``{"trust": "maybe"}`` was read as ``bool("maybe")``: it trusted
    the folder. Now it is an invalid request, and nothing is recorded."""
    shown = kernel.execute("%zengine")
    model_id = widget_id(shown)
    opens = [m["content"] for m in shown.comm_msgs if m["msg_type"] == "comm_open"]
    (opened,) = [o["data"]["state"] for o in opens if o["comm_id"] == model_id]
    state = StatusWidgetState.model_validate({k: opened[k] for k in StatusWidgetState.model_fields})
    assert state.details is not None  # %zengine loads them at once
    assert state.details.trusted is False

    kernel.send_widget_message(model_id, {"v": 1, "kind": "trust_answer", "id": "s1",
                                          "trust": "maybe"})  # fmt: skip
    reply = _refusal(kernel, model_id, "s1")
    assert (reply.error or "").startswith("invalid 'trust_answer' request: trust: ")
    kernel.send_widget_message(model_id, {"v": 1, "kind": "refresh"})  # no id
    assert "Field required" in (_refusal(kernel, model_id, None).error or "")
    assert kernel.execute("1 + 1").status == "ok"
    assert not (zengine_home / "trust.json").exists()


def test_turn_and_rewind_widgets_refuse_bad_requests_and_the_turn_goes_on(
    kernel: KernelHarness, server: ProviderServer
) -> None:
    server.add(Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "echo hi"}),)),
               Reply(text=("ran it",)))  # fmt: skip
    turn = kernel.execute("%%agent\nrun echo hi\n")
    assert turn.status == "ok", turn.text
    model_id = widget_id(turn)
    asked = kernel.widget_messages(model_id, has_event("approval_requested"))
    for message in asked:
        _messages.validate_python(message)
    (request,) = [e["request"] for e in events_of(asked) if e["kind"] == "approval_requested"]

    kernel.send_widget_message(model_id, {"v": 1, "kind": "approval_answer", "id": "a1",
                                          "request_id": request["id"],
                                          "decision": {"action": "shrug"}})  # fmt: skip
    assert "invalid 'approval_answer' request: decision" in (
        _refusal(kernel, model_id, "a1").error or ""
    )
    kernel.send_widget_message(model_id, {"v": 1, "kind": "trust_answer", "id": "a2",
                                          "trust": True})  # fmt: skip
    assert "unknown request kind 'trust_answer'" in (_refusal(kernel, model_id, "a2").error or "")
    kernel.send_widget_message(model_id, {"v": 2, "kind": "interrupt", "id": "a3"})
    assert "version 2 is not 1" in (_refusal(kernel, model_id, "a3").error or "")

    # the question is still open: a good click answers it and the turn ends well
    kernel.send_widget_message(model_id, {"v": 1, "kind": "approval_answer", "id": "a4",
                                          "request_id": request["id"],
                                          "decision": {"action": "allow_once"}})  # fmt: skip
    rest = kernel.widget_messages(model_id, has_event("turn_result"))
    for message in rest:
        _messages.validate_python(message)
    assert {"v": 1, "kind": "reply", "id": "a4", "ok": True} in rest
    (result,) = [e for e in events_of(rest) if e["kind"] == "turn_result"]
    assert result["status"] == "completed"

    rewind_id = widget_id(kernel.execute("%agent /rewind"))
    kernel.send_widget_message(rewind_id, {"v": 1, "kind": "rewind", "id": "r1", "to": "1",
                                           "what": "everything"})  # fmt: skip
    assert "invalid 'rewind' request: what: " in (_refusal(kernel, rewind_id, "r1").error or "")
    assert kernel.execute("print(6 * 7)").text.strip() == "42"
