"""Acceptance 4: under nbclient (no frontend to click) ``%%agent --wait`` runs the turn to its
end inside the cell, approvals are denied by policy, and the kernel logs no error."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall
from zengine_jupyter.testing.kernel import WIDGET_MIME, execute_notebook

pytestmark = pytest.mark.e2e


def _edit_script(server: ProviderServer, last: str) -> None:
    server.add(
        Reply(tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),)),
        Reply(tool_calls=(ScriptedToolCall(
            "Edit", {"path": "pipeline.py", "old_string": "RATE = 1", "new_string": "RATE = 2"}),)),
        Reply(text=(last,)),
    )  # fmt: skip


def test_wait_under_nbclient_denies_by_policy(
    project: Path, server: ProviderServer, tmp_path: Path
) -> None:
    _edit_script(server, "I was not allowed to edit it.")
    _edit_script(server, "Denied again.")
    _edit_script(server, "RATE is 2 now.")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext zengine"),
        nbformat.v4.new_code_cell("%%agent --wait\nSet RATE to 2\n"),
        nbformat.v4.new_code_cell("%%agent\nTry again\n"),  # non-interactive: blocks too
        nbformat.v4.new_code_cell("print(open('pipeline.py').read())"),
        nbformat.v4.new_code_cell("%%agent --wait --yes\nSet RATE to 2\n"),  # allowed by policy
    ]
    log = tmp_path / "kernel.log"
    execute_notebook(nb, project, log, env={"ANTHROPIC_API_KEY": "test-key"})

    texts = [
        "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in c.outputs)
        for c in nb.cells
    ]
    assert all(o.output_type != "error" for c in nb.cells for o in c.outputs), texts
    assert "I was not allowed to edit it." in texts[1]
    # one output per --wait cell: the widget, whose plain-text form (what a frontend without
    # widgets shows) is the turn's summary, not a second output
    (output,) = nb.cells[1].outputs
    assert set(output.data) == {WIDGET_MIME, "text/plain"}
    assert not texts[1].startswith("zengine turn: Set RATE to 2")
    assert "object at 0x" not in "".join(texts)
    assert "turn completed" in texts[1]
    assert "Denied (nobody answered): this cell ran without a frontend" in texts[1]
    assert "denied: denied" not in texts[1].lower()  # one wording, no doubled prefix
    assert "Denied again." in texts[2]
    assert texts[3].startswith("RATE = 1")  # the cell after ran after the turns had ended
    assert "changed pipeline.py" in texts[4]
    assert (project / "pipeline.py").read_text().startswith("RATE = 2")
    assert len(server.requests) == 9
    denied = server.requests[2].json["messages"][-1]["content"][0]
    assert denied["is_error"] is True

    logged = log.read_text()
    for bad in ("Traceback", "ERROR", "cannot enter context", "Task was destroyed"):
        assert bad not in logged, logged
