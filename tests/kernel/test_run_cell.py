"""RunCell in a real kernel (issue 23 acceptance 4, and the model side of 2): the approval
shows the exact code and a denial runs nothing; plan mode refuses; an endless loop stops at
its bound and the kernel stays usable; what the code printed, returned and plotted reaches the
next request in the provider's own format."""

from __future__ import annotations

import base64
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.testing import (
    ProviderServer,
    Reply,
    ScriptedToolCall,
    provider_settings,
    write_provider_settings,
)
from zengine_jupyter.testing.kernel import (
    KernelHarness,
    agent_kernel,
    events_of,
    has_event,
    turn_events,
    widget_id,
)

pytestmark = pytest.mark.e2e

PLOT = "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title('rates')\nplt.show()"
FRAME = (
    "import pandas as pd\nprint('rows ready')\n"
    "frame = pd.DataFrame({'rate': [1.5, 2.5, 3.5], 'n': [1, 2, 3]})\nframe"
)


def _run(code: str, **extra: Any) -> Reply:
    return Reply(tool_calls=(ScriptedToolCall("RunCell", {"code": code, **extra}),))


def _tool_result(server: ProviderServer, index: int) -> dict[str, Any]:
    """The Anthropic ``tool_result`` block request ``index`` answers the last call with."""
    block: dict[str, Any] = server.requests[index].json["messages"][-1]["content"][0]
    assert block["type"] == "tool_result"
    return block


def _text_of(block: dict[str, Any]) -> str:
    content = block["content"]
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content)


def _count(kernel: KernelHarness) -> int:
    return int(kernel.execute("print(get_ipython().execution_count)").text.strip())


def test_default_mode_shows_the_code_and_a_denial_runs_nothing(
    kernel: KernelHarness, server: ProviderServer
) -> None:
    code = "ran = 42\nprint('hello from the agent')"
    server.add(_run(code), Reply(text=("It was not allowed.",)))
    cell = kernel.execute("%%agent\nSet ran\n")
    model_id = widget_id(cell)
    asked = kernel.widget_messages(model_id, has_event("approval_requested"))
    (request,) = [e["request"] for e in events_of(asked) if e["kind"] == "approval_requested"]
    assert request["tool"] == "RunCell"
    assert request["command"] == code  # the exact code, every line of it
    assert "cannot be sandboxed" in request["reason"]
    assert kernel.execute("print('ran' in globals())").text.strip() == "False"  # still waiting
    kernel.send_widget_message(model_id, {"v": 1, "kind": "approval_answer", "id": "no-1",
                                          "request_id": request["id"],
                                          "decision": {"action": "deny"}})  # fmt: skip
    kernel.widget_messages(model_id, has_event("turn_result"))
    assert kernel.execute("print('ran' in globals())").text.strip() == "False"
    denied = _tool_result(server, 1)
    assert denied["is_error"] is True
    assert "denied" in _text_of(denied)
    assert "hello from the agent" not in kernel.execute("print(1)").text


def test_allowed_in_a_background_turn_it_runs_in_the_users_namespace(
    kernel: KernelHarness, server: ProviderServer
) -> None:
    """The turn runs as a task between cells (no --wait): the code runs on the kernel's main
    thread when the click arrives, sees the user's variables and leaves its own."""
    code = "doubled = [v * 2 for v in base]\nprint('doubled', doubled)\nlen(doubled)"
    server.add(_run(code), Reply(text=("Doubled.",)))
    assert kernel.execute("base = [1, 2, 3]").status == "ok"
    cell = kernel.execute("%%agent\nDouble base\n")
    model_id = widget_id(cell)
    asked = kernel.widget_messages(model_id, has_event("approval_requested"))
    (request,) = [e["request"] for e in events_of(asked) if e["kind"] == "approval_requested"]
    assert request["summary"] == "doubled = [v * 2 for v in base] (+2 lines)"
    kernel.send_widget_message(model_id, {"v": 1, "kind": "approval_answer", "id": "yes-1",
                                          "request_id": request["id"],
                                          "decision": {"action": "allow_once"}},
                               subshell_id=kernel.create_subshell())  # fmt: skip
    kernel.widget_messages(model_id, has_event("turn_result"))
    assert kernel.execute("print(doubled)").text.strip() == "[2, 4, 6]"
    answer = _text_of(_tool_result(server, 1))
    assert "stdout:\ndoubled [2, 4, 6]" in answer
    assert "result (last expression):\n3" in answer
    # nothing of the run was published to the notebook: the agent cell shows only its widget
    printed = [m for m in kernel.received if m["msg_type"] == "stream"
               and "doubled [2, 4, 6]" in m["content"]["text"]]  # fmt: skip
    assert printed == []


def test_plan_mode_refuses_run_cell(kernel: KernelHarness, server: ProviderServer) -> None:
    server.add(_run("planned = 1"), Reply(text=("Plan mode said no.",)))
    events = turn_events(kernel, "%%agent --mode plan --wait --yes\nRun it\n")
    assert not [e for e in events if e["kind"] == "approval_requested"]
    refused = _tool_result(server, 1)
    assert refused["is_error"] is True
    assert "plan mode" in _text_of(refused)
    assert kernel.execute("print('planned' in globals())").text.strip() == "False"


def test_an_endless_loop_stops_at_its_bound_and_the_kernel_stays_usable(
    kernel: KernelHarness, server: ProviderServer
) -> None:
    server.add(_run("spins = 0\nwhile True:\n    spins += 1", timeout_s=1), Reply(text=("ok",)))
    before = _count(kernel)
    turn_events(kernel, "%%agent --wait --yes\nSpin\n", timeout=60)
    stopped = _text_of(_tool_result(server, 1))
    assert "Stopped at the 1 s bound" in stopped
    assert "KeyboardInterrupt" in stopped
    assert "not rewound" in stopped
    found = re.search(r"Ran headless in the kernel in ([\d.]+) s", stopped)
    assert found is not None, stopped
    ran_for = float(found.group(1))  # the bound, plus formatting the traceback
    assert 0.9 <= ran_for < 5, stopped
    assert kernel.execute("print(spins > 0, 6 * 7)").text.strip() == "True 42"
    assert _count(kernel) == before  # the harness's cells take no count; neither did RunCell
    # the run's SIGINT handler is gone: a cell has ipykernel's own again
    handler = kernel.execute("import signal; print(signal.getsignal(2))").text
    assert "default_int_handler" in handler, handler


def test_the_notebooks_interrupt_button_stops_a_headless_run(
    project: Path, server: ProviderServer, zengine_home: Path
) -> None:
    """A background turn's run (allowed by a rule) is stopped by the kernel interrupt a
    frontend sends (SIGINT), and says the user stopped it, not the bound."""
    write_provider_settings(zengine_home, server.base_url, '[permissions]\nallow = ["RunCell"]\n')
    started = project / "started"
    code = f"import time\nopen({str(started)!r}, 'w').close()\nfor step in range(600):\n"
    server.add(_run(code + "    time.sleep(0.1)"), Reply(text=("stopped",)))
    with agent_kernel(project) as kernel:
        cell = kernel.execute("%%agent\nWait a minute\n")
        model_id = widget_id(cell)
        # the views hear the call started before the code blocks the kernel's loop
        kernel.widget_messages(model_id, has_event("tool_call_started"), timeout=30)
        deadline = time.monotonic() + 30
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists()
        time.sleep(0.5)
        kernel.manager.interrupt_kernel()
        kernel.widget_messages(model_id, has_event("turn_result"), timeout=30)
        assert kernel.execute("print(0 < step < 590)").text.strip() == "True"
    stopped = _text_of(_tool_result(server, 1))
    assert "Interrupted by the user (KeyboardInterrupt)" in stopped
    assert "bound" not in stopped


def test_a_plot_and_a_frame_reach_the_next_anthropic_request(
    kernel: KernelHarness, server: ProviderServer, zengine_home: Path
) -> None:
    server.add(_run(PLOT), _run(FRAME), Reply(text=("Seen.",)))
    turn_events(kernel, "%%agent --wait --yes\nPlot it\n", timeout=90)
    plotted = _tool_result(server, 1)
    assert "is_error" not in plotted
    text, image = plotted["content"]
    assert text["type"] == "text"
    assert "image 1 attached: png" in text["text"]
    assert image["type"] == "image"
    assert image["source"]["type"] == "base64"
    assert image["source"]["media_type"] == "image/png"
    assert base64.b64decode(image["source"]["data"])[:8] == b"\x89PNG\r\n\x1a\n"
    framed = _text_of(_tool_result(server, 2))
    assert "stdout:\nrows ready" in framed
    assert "DataFrame shape (3, 2)" in framed
    assert "rate: float64, n: int64" in framed
    assert "0   1.5  1" in framed
    assert kernel.execute("print(frame.shape)").text.strip() == "(3, 2)"  # the user's namespace
    # the log keeps the image by reference: its hash and file, not the bytes
    (log,) = (zengine_home / "sessions").rglob("log.jsonl")
    results = [json.loads(line) for line in log.read_text().splitlines()]
    kinds = [r.get("kind") for r in results]
    assert kinds.index("checkpoint") < kinds.index("tool_result")  # files, before the first run
    (recorded,) = [r for r in results if r.get("kind") == "tool_result" and r.get("images")]
    (ref,) = recorded["images"]
    stored = log.parent / "artifacts" / ref["file"]
    assert stored.read_bytes() == base64.b64decode(image["source"]["data"])
    assert image["source"]["data"][:200] not in log.read_text()


def test_a_plot_reaches_the_next_openai_request_as_a_user_image(
    project: Path, zengine_home: Path
) -> None:
    from zengine_jupyter.testing import provider_in_thread

    with provider_in_thread() as server:
        settings = provider_settings(server.base_url, kind="openai", model="gpt-5")
        (zengine_home / "settings.toml").write_text(settings)
        server.add(_run(PLOT), Reply(text=("Seen.",)))
        with agent_kernel(project) as kernel:
            kernel.execute("import os; os.environ['OPENAI_API_KEY'] = 'test-key'")
            turn_events(kernel, "%%agent --wait --yes\nPlot it\n", timeout=90)
        messages = server.requests[1].json["messages"]
    tool, user = messages[-2], messages[-1]
    assert tool["role"] == "tool"
    assert isinstance(tool["content"], str)
    assert "image 1 attached: png" in tool["content"]
    assert user["role"] == "user"
    (part,) = user["content"]
    assert part["type"] == "image_url"
    url = part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
