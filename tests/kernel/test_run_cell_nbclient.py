"""Issue 23 acceptance 5: headless RunCell under nbclient. A ``%%agent --wait --yes`` cell's
turn runs code in the kernel: the variable it defines exists afterwards, its outputs come back
to the model, and the user's cells keep their execution counts and history."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall
from zengine_jupyter.testing.kernel import execute_notebook

pytestmark = pytest.mark.e2e

CODE = "total = x + 41\nprint('total is', total)\ntotal"


def test_headless_run_cell_under_nbclient(
    project: Path, server: ProviderServer, tmp_path: Path
) -> None:
    server.add(
        Reply(tool_calls=(ScriptedToolCall("RunCell", {"code": CODE}),)),
        Reply(text=("total is 42.",)),
    )
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext zengine"),
        nbformat.v4.new_code_cell("x = 1\nx"),
        nbformat.v4.new_code_cell("%%agent --wait --yes\nDefine total from x\n"),
        nbformat.v4.new_code_cell("print(total, _, len(In), any('x + 41' in c for c in In[:-1]))"),
    ]
    log = tmp_path / "kernel.log"
    execute_notebook(nb, project, log, env={"ANTHROPIC_API_KEY": "test-key"})

    assert [c.execution_count for c in nb.cells] == [1, 2, 3, 4]
    assert all(o.output_type != "error" for c in nb.cells for o in c.outputs)
    (last,) = nb.cells[3].outputs
    # total exists; _ is still the user's last result (x), not RunCell's; In holds the
    # user's 4 cells (and IPython's empty first entry), never the agent's code
    assert last.text.strip() == "42 1 5 False"
    answer = server.requests[1].json["messages"][-1]["content"][0]
    assert answer["type"] == "tool_result"
    assert "stdout:\ntotal is 42" in answer["content"]
    assert "result (last expression):\n42" in answer["content"]
    assert "turn completed" in nb.cells[2].outputs[0].data["text/plain"]
    logged = log.read_text()
    for bad in ("Traceback", "ERROR", "cannot enter context", "Task was destroyed"):
        assert bad not in logged, logged
