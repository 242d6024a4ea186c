"""The status widget in a real kernel: details on a view's request, "Not now" hides the banner
for this kernel, "Trust" (sent as the frontend sends it, over a subshell) writes the trust file
and the open chat's withheld settings apply from then on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.testing import DEFAULT_MODEL, ProviderServer, Reply, ScriptedToolCall
from zengine_jupyter.testing.kernel import (
    KernelHarness,
    events_of,
    has_event,
    json_of_cell,
    opened_state,
    turn_events,
    widget_id,
)

pytestmark = pytest.mark.e2e

_BOARD = """
import json
from zengine_jupyter.kernel._extension import _loaded
_board = _loaded[get_ipython()].magics.status
_ctl = _loaded[get_ipython()].magics.controller
print(json.dumps({
    "states": [w.state["details"] for _, w in _board.widgets],
    "trusted": [c.session.settings.trusted for c in _ctl.chats.values()],
}))
"""


def _reply(kernel: KernelHarness, model_id: str, request_id: str) -> dict[str, Any]:
    (*_, reply) = kernel.widget_messages(
        model_id, lambda m: m.get("kind") == "reply" and m.get("id") == request_id
    )
    return reply


def test_status_details_not_now_and_trust(
    kernel: KernelHarness, project: Path, server: ProviderServer, zengine_home: Path
) -> None:
    (project / ".z-engine").mkdir()
    (project / ".z-engine" / "settings.toml").write_text(
        '[permissions]\nallow = ["Bash(echo hi)"]\n'
    )
    # %load_ext's widget: the cheap line at once, the rest when a view asks
    assert kernel.execute("%unload_ext zengine").status == "ok"  # the fixture loaded it
    loaded = kernel.execute("%load_ext zengine")
    assert loaded.status == "ok", loaded.text
    first = widget_id(loaded)
    assert opened_state(loaded, first)["details"] is None
    assert "%zengine" in loaded.text
    assert opened_state(loaded, first)["_model_name"] == "AnyModel"
    kernel.send_widget_message(first, {"v": 1, "kind": "refresh", "id": "r1"})
    assert _reply(kernel, first, "r1")["ok"] is True
    (details, *_) = json_of_cell(kernel, _BOARD)["states"]
    assert details["trusted"] is False
    assert [w["key"] for w in details["withheld"]] == ["permissions.allow"]
    assert details["model"] == DEFAULT_MODEL
    assert details["sandbox"]["enabled"] is False

    # a chat is open before the trust click
    server.add(Reply(text=("hello",)))
    events = turn_events(kernel, "%%agent\nhi\n")
    assert any(e["kind"] == "trust_required" for e in events)

    # %zengine: every detail at once, in the text fallback too
    shown = kernel.execute("%zengine")
    assert shown.status == "ok", shown.text
    second = widget_id(shown)
    assert "trust: not trusted; withheld: permissions.allow (project)" in shown.text
    assert "/trust" in shown.text
    assert "MCP servers: none configured" in shown.text
    assert opened_state(shown, second)["dismissed"] is False

    # Not now: nothing recorded, the banner stays hidden in this kernel
    kernel.send_widget_message(second, {"v": 1, "kind": "trust_answer", "id": "n1",
                                        "trust": False})  # fmt: skip
    assert _reply(kernel, second, "n1")["ok"] is True
    assert not (zengine_home / "trust.json").exists()
    again = kernel.execute("%zengine")
    third = widget_id(again)
    assert opened_state(again, third)["dismissed"] is True
    assert "/trust" not in again.text

    # Trust, as JupyterLab sends it (over a subshell: another thread, another loop)
    subshell = kernel.create_subshell()
    kernel.send_widget_message(third, {"v": 1, "kind": "trust_answer", "id": "t1",
                                       "trust": True}, subshell_id=subshell)  # fmt: skip
    assert _reply(kernel, third, "t1")["ok"] is True
    trusted = json.loads((zengine_home / "trust.json").read_text())
    assert [f["path"] for f in trusted["folders"]] == [str(project.resolve())]
    board = json_of_cell(kernel, _BOARD)
    assert board["trusted"] == [True]
    assert board["states"][-1]["trusted"] is True
    assert board["states"][-1]["withheld"] == []

    # the project's allow rule now applies in the open chat: no approval asked
    server.add(Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "echo hi"}),)),
               Reply(text=("ran it",)))  # fmt: skip
    events = turn_events(kernel, "%%agent\nrun echo hi\n")
    assert not [e for e in events if e["kind"] == "approval_requested"]
    (finished,) = [e for e in events if e["kind"] == "tool_call_finished"]
    assert finished["is_error"] is False
    assert "hi" in finished["output"]
    (result,) = [e for e in events if e["kind"] == "turn_result"]
    assert result["status"] == "completed"


def test_unknown_and_wrong_version_requests_get_an_error_reply(kernel: KernelHarness) -> None:
    shown = kernel.execute("%zengine")
    model_id = widget_id(shown)
    kernel.send_widget_message(model_id, {"v": 99, "kind": "refresh", "id": "a"})
    assert "version" in _reply(kernel, model_id, "a")["error"]
    kernel.send_widget_message(model_id, {"v": 1, "kind": "launch", "id": "b"})
    assert _reply(kernel, model_id, "b") == {
        "v": 1, "kind": "reply", "id": "b", "ok": False,
        "error": "unknown request kind 'launch': this widget answers refresh, trust_answer",
    }  # fmt: skip
    assert kernel.execute("1 + 1").status == "ok"


def test_trust_during_a_turn_reloads_the_chat_when_the_turn_ends(
    kernel: KernelHarness, project: Path, server: ProviderServer
) -> None:
    (project / ".z-engine").mkdir()
    (project / ".z-engine" / "settings.toml").write_text('[permissions]\nallow = ["Bash(ls)"]\n')
    server.add(Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "echo hi"}),)),
               Reply(text=("done",)))  # fmt: skip
    turn = kernel.execute("%%agent\nrun echo hi\n")
    turn_id = widget_id(turn)
    asked = kernel.widget_messages(turn_id, has_event("approval_requested"))
    (request,) = [e["request"] for e in events_of(asked) if e["kind"] == "approval_requested"]

    # the turn waits for a click: trusting now answers at once, the chat reloads later
    status_id = widget_id(kernel.execute("%zengine"))
    kernel.send_widget_message(status_id, {"v": 1, "kind": "trust_answer", "id": "t",
                                           "trust": True})  # fmt: skip
    assert _reply(kernel, status_id, "t")["ok"] is True
    assert json_of_cell(kernel, _BOARD)["trusted"] == [
        False
    ]  # the model cannot change during a turn

    kernel.send_widget_message(turn_id, {"v": 1, "kind": "approval_answer", "id": "a",
                                         "request_id": request["id"],
                                         "decision": {"action": "allow_once"}})  # fmt: skip
    kernel.widget_messages(turn_id, has_event("turn_result"))
    reloaded = kernel.execute(
        "import asyncio\nfrom zengine_jupyter.kernel import controller_for\n"
        "_c = controller_for(get_ipython())\n"
        "for _ in range(100):\n"
        "    if all(c.session.settings.trusted for c in _c.chats.values()):\n"
        "        break\n"
        "    await asyncio.sleep(0.05)\n"
        "print([c.session.settings.trusted for c in _c.chats.values()])\n"
    )
    assert reloaded.text.strip() == "[True]"


def test_trust_by_command_refreshes_the_status_widgets(
    kernel: KernelHarness, project: Path, server: ProviderServer, zengine_home: Path
) -> None:
    (project / ".z-engine").mkdir()
    (project / ".z-engine" / "settings.toml").write_text('[permissions]\nallow = ["Bash(ls)"]\n')
    server.add(Reply(text=("hello",)))
    turn_events(kernel, "%%agent\nhi\n")  # a chat is open
    shown = kernel.execute("%zengine")
    assert "trust: not trusted" in shown.text
    # /trust typed in the notebook takes the same path as the buttons: widgets show it
    trusted = kernel.execute("%agent --wait /trust")
    assert trusted.status == "ok", trusted.text
    assert f"trusted {project.resolve()}" in trusted.text
    board = json_of_cell(kernel, _BOARD)
    assert board["trusted"] == [True]
    assert board["states"][-1]["trusted"] is True
    assert board["states"][-1]["withheld"] == []
    again = kernel.execute("%agent --wait /trust")
    assert f"{project.resolve()} is trusted" in again.text
