"""Acceptance 3 and 5: failures show in the widget (never as a traceback in the cell), the
kernel and the next turn keep working, and unload + load leaves nothing behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall
from zengine_jupyter.testing.kernel import (
    KernelHarness,
    has_event,
    json_of_cell,
    turn_events,
    widget_id,
)

pytestmark = pytest.mark.e2e

_BOOM = """
from zengine_jupyter.kernel import controller_for
from zengine_jupyter.engine.tools import Tool, ToolInput, ToolOutput
from zengine_jupyter.engine import SessionExtension

class BoomInput(ToolInput):
    pass

class Boom(Tool[BoomInput]):
    name = "Boom"
    kind = "read"
    description = "fails"
    Input = BoomInput

    async def run(self, args, ctx):
        raise RuntimeError("boom inside the tool")

class BoomExtension(SessionExtension):
    async def start(self, session):
        session.tools["Boom"] = Boom()

controller_for(get_ipython()).extensions.append(BoomExtension)
"""

_PROBE = """
import asyncio, json, os
from zengine_jupyter.kernel._widget import open_widgets
_ip = get_ipython()

def _ppid(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(") ", 1)[-1].split()[1]
    except OSError:
        return None

print(json.dumps({
    "line": sorted(_ip.magics_manager.magics["line"]),
    "cell": sorted(_ip.magics_manager.magics["cell"]),
    "targets": sorted(_ip.kernel.comm_manager.targets),
    "tasks": sorted(t.get_name() for t in asyncio.all_tasks()
                    if t.get_name().startswith("zengine")),
    "widgets": [w.model_id for w in open_widgets()],
    "comms": sorted(_ip.kernel.comm_manager.comms),
    "children": [p for p in os.listdir("/proc") if p.isdigit() and _ppid(p) == str(os.getpid())],
}))
"""


def _errors(events: list[dict[str, object]]) -> list[str]:
    return [str(e["message"]) for e in events if e["kind"] == "error"]


def test_failures_render_in_the_widget_and_unload_load_leaves_nothing(
    kernel: KernelHarness, project: Path, server: ProviderServer
) -> None:
    # the provider is overloaded, then refuses: retries are shown, then the error
    server.add(Reply.fault(529, retry_after=0), Reply.fault(401))
    events = turn_events(kernel, "%%agent\nhello\n")
    busy = [e for e in events if e["kind"] == "provider_busy"]
    assert len(busy) == 1  # one retry (its number counts attempts)
    assert len(_errors(events)) == 1
    assert [e["status"] for e in events if e["kind"] == "turn_result"] == ["failed"]

    # an exception inside a tool: the call's error result (the model reads it and the turn
    # goes on: issue 18 item 11), its traceback in the data folder's tools log; the kernel goes on
    assert kernel.execute(_BOOM).status == "ok"
    server.add(Reply(tool_calls=(ScriptedToolCall("Boom", {}),)), Reply(text=("Boom broke.",)))
    events = turn_events(kernel, "%%agent --new\nuse Boom\n")
    (finished,) = [e for e in events if e["kind"] == "tool_call_finished"]
    assert finished["is_error"]
    assert "internal error (RuntimeError: boom inside the tool)" in str(finished["output"])
    assert [e["status"] for e in events if e["kind"] == "turn_result"] == ["completed"]
    assert kernel.execute("print(6 * 7)").text.strip() == "42"

    # the next turn works, in the same chat
    server.add(Reply(text=("still here",)))
    events = turn_events(kernel, "%%agent\nare you there?\n")
    (result,) = [e for e in events if e["kind"] == "turn_result"]
    assert (result["status"], result["text"]) == ("completed", "still here")

    # a turn in flight (waiting for a click), then unload: everything goes
    server.add(Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "true"}),)))
    pending = kernel.execute("%%agent\nrun true\n")
    kernel.widget_messages(widget_id(pending), has_event("approval_requested"))
    during = json_of_cell(kernel, _PROBE)
    assert "zengine-agent-turn" in during["tasks"]
    assert widget_id(pending) in during["widgets"]
    assert widget_id(pending) in during["comms"]

    assert kernel.execute("%unload_ext zengine").status == "ok"
    after = json_of_cell(kernel, _PROBE)  # unload waited for the turn and the chats to close
    assert after["tasks"] == []
    assert after["widgets"] == []
    assert widget_id(pending) not in after["comms"]  # its comm closed too
    assert "zengine" not in after["targets"]
    assert "agent" not in after["cell"]
    assert "agent" not in after["line"]
    assert after["children"] == []

    # load again: the magics, the target and a turn work
    assert kernel.execute("%load_ext zengine").status == "ok"
    again = json_of_cell(kernel, _PROBE)
    assert "zengine" in again["targets"]
    assert "agent" in again["cell"]
    server.add(Reply(text=("back",)))
    events = turn_events(kernel, "%%agent\nhello again\n")
    (result,) = [e for e in events if e["kind"] == "turn_result"]
    assert (result["status"], result["text"]) == ("completed", "back")
    assert kernel.execute("1 + 1").status == "ok"
