"""``%agent /rewind`` in a real kernel: the widget lists the chat's messages with their
checkpoints; a click (a widget message, as the frontend sends it) puts a file back on disk and
the answer names the file it left alone; ``%agent /rewind N what`` works without clicks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall
from zengine_jupyter.testing.kernel import (
    KernelHarness,
    turn_events,
    widget_id,
)

pytestmark = pytest.mark.e2e

_BIG = 9 * 1024 * 1024  # over the snapshots' 8 MiB limit


def _reply(kernel: KernelHarness, model_id: str, request_id: str) -> dict[str, Any]:
    (*_, reply) = kernel.widget_messages(
        model_id, lambda m: m.get("kind") == "reply" and m.get("id") == request_id, 60
    )
    return reply


def _edit(old: str, new: str) -> Reply:
    args = {"path": "pipeline.py", "old_string": old, "new_string": new}
    return Reply(tool_calls=(ScriptedToolCall("Edit", args),))


def test_rewind_widget_restores_code_and_lists_what_it_left_alone(
    kernel: KernelHarness, project: Path, server: ProviderServer
) -> None:
    nothing = kernel.execute("%agent /rewind")
    assert "no chat in this kernel yet" in nothing.text

    (project / "big.bin").write_bytes(b"\0" * _BIG)
    read = Reply(tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),))
    server.add(read, _edit("RATE = 1", "RATE = 2"), Reply(text=("RATE is 2",)))
    turn_events(kernel, "%%agent --yes\nSet RATE to 2\n")
    server.add(read, _edit("RATE = 2", "RATE = 3"), Reply(text=("RATE is 3",)))
    turn_events(kernel, "%%agent --yes\nNow 3\n")
    assert (project / "pipeline.py").read_text().startswith("RATE = 3")

    shown = kernel.execute("%agent /rewind")
    assert shown.status == "ok", shown.text
    model_id = widget_id(shown)
    kernel.send_widget_message(model_id, {"v": 1, "kind": "refresh", "id": "p"})
    points = _reply(kernel, model_id, "p")["points"]
    assert [p["prompt"] for p in points] == ["Set RATE to 2", "Now 3"]
    assert all(p["checkpoint_id"] for p in points)

    # "Restore code" on the first message, sent as JupyterLab sends it (over a subshell)
    subshell = kernel.create_subshell()
    kernel.send_widget_message(model_id, {"v": 1, "kind": "rewind", "id": "c",
                                          "to": points[0]["turn_id"], "what": "code"},
                               subshell_id=subshell)  # fmt: skip
    reply = _reply(kernel, model_id, "c")
    assert reply["ok"] is True, reply
    assert (project / "pipeline.py").read_text().startswith("RATE = 1")
    result = reply["result"]
    assert result["what"] == "code"
    assert result["conversation"] is False
    assert result["code"]["restored"] == ["pipeline.py"]
    assert [(i["path"], i["reason"]) for i in result["code"]["left_alone"]] == [
        ("big.bin", "too_large")
    ]
    assert "left alone (not stored, too large): big.bin" in result["text"]
    assert len(reply["points"]) == 2  # the conversation was kept

    # a bad request is an error reply, not a traceback
    kernel.send_widget_message(model_id, {"v": 1, "kind": "rewind", "id": "x", "to": "99",
                                          "what": "both"})  # fmt: skip
    bad = _reply(kernel, model_id, "x")
    assert bad["ok"] is False
    assert "no user message '99'" in bad["error"]

    # without clicks: the text command
    done = kernel.execute("%agent --wait /rewind 2 conversation")
    assert done.status == "ok", done.text
    assert "rewound the conversation" in done.text
    assert (project / "pipeline.py").read_text().startswith("RATE = 1")  # code untouched
    kernel.send_widget_message(model_id, {"v": 1, "kind": "refresh", "id": "q"})
    assert [p["prompt"] for p in _reply(kernel, model_id, "q")["points"]] == ["Set RATE to 2"]
