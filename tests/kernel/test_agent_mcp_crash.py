"""Acceptance 3, the MCP part: a server that crashes mid-session shows as an error in the
widget, never as a traceback in the cell; the kernel stays alive and the next turn works."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall
from zengine_jupyter.testing.kernel import (
    KernelHarness,
    turn_events,
)
from zengine_jupyter.testing.mcp_chat import settings_text, stdio_server

pytestmark = pytest.mark.e2e

_READY = """
import json
from zengine_jupyter.kernel import controller_for
from zengine_jupyter.testing.mcp_chat import mcp_extension
_c = controller_for(get_ipython())
_s = _c.chats[_c.current].session
print(json.dumps([[s.name, s.state] for s in await mcp_extension(_s).wait_ready(60)]))
"""


def test_a_crashing_mcp_server_is_an_error_in_the_widget(
    kernel: KernelHarness, server: ProviderServer, zengine_home: Path
) -> None:
    (zengine_home / "settings.toml").write_text(
        settings_text(server.base_url, {"fx": stdio_server()})
    )
    server.add(Reply(text=("hello",)))
    events = turn_events(kernel, "%%agent\nhi\n", 60)
    assert [e["status"] for e in events if e["kind"] == "turn_result"] == ["completed"]
    ready = kernel.execute(_READY, timeout=90)
    assert ready.status == "ok", ready.text
    assert json.loads(ready.text.strip().splitlines()[-1]) == [["fx", "ready"]]

    # the server dies in the middle of a call (its crash tool exits without answering)
    server.add(Reply(tool_calls=(ScriptedToolCall("mcp__fx__crash", {}),)),
               Reply(text=("the fx server crashed",)))  # fmt: skip
    events = turn_events(kernel, "%%agent --yes\nuse the crash tool\n", 60)
    (finished,) = [e for e in events if e["kind"] == "tool_call_finished"]
    assert finished["is_error"] is True
    assert "MCP server 'fx' dropped the connection" in finished["output"]
    assert "[mcp.servers.fx]" in finished["output"]  # what to check next
    (result,) = [e for e in events if e["kind"] == "turn_result"]
    assert (result["status"], result["text"]) == ("completed", "the fx server crashed")

    # the kernel is alive and the next turn works (its MCP call included)
    assert kernel.execute("print(6 * 7)").text.strip() == "42"
    server.add(Reply(tool_calls=(ScriptedToolCall("mcp__fx__echo", {"text": "back"}),)),
               Reply(text=("still here",)))  # fmt: skip
    events = turn_events(kernel, "%%agent --yes\necho back\n", 60)
    (echo,) = [e for e in events if e["kind"] == "tool_call_finished"]
    (result,) = [e for e in events if e["kind"] == "turn_result"]
    assert (result["status"], result["text"]) == ("completed", "still here")
    assert (echo["is_error"], echo["output"]) == (False, "back")
