"""``from zengine_jupyter import Agent``: a turn from a script, its text, status and files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from zengine_jupyter import Agent, AgentResult
from zengine_jupyter.engine import FixedApprovals
from zengine_jupyter.testing import (
    Reply,
    ScriptedToolCall,
    configured_provider,
)


async def test_agent_runs_a_turn_and_reports_changed_files(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home) as server:
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),)),
            Reply(tool_calls=(ScriptedToolCall("Edit", {
                "path": "pipeline.py", "old_string": "RATE = 1", "new_string": "RATE = 3"}),)),
            Reply(text=("RATE is 3.",)),
            Reply(tool_calls=(ScriptedToolCall("Write", {"path": "x.py", "content": "x"}),)),
            Reply(text=("Not allowed.",)),
        )  # fmt: skip
        async with Agent(project, approvals=FixedApprovals(allow=True)) as agent:
            result = await agent.run("Set RATE to 3")
        assert isinstance(result, AgentResult)
        assert (result.text, result.status, result.changed) == ("RATE is 3.", "completed",
                                                                ["pipeline.py"])  # fmt: skip
        assert (project / "pipeline.py").read_text().startswith("RATE = 3")

        async with Agent(project) as strict:  # nobody to ask: what would ask is denied
            denied = await strict.run("write x.py")
        assert (denied.text, denied.changed) == ("Not allowed.", [])
        assert not (project / "x.py").exists()


def test_agent_imports_no_ipython_outside_a_kernel() -> None:
    """A script's ``zengine_jupyter.Agent`` must not import IPython (nor the widget stack)."""
    code = (
        "import sys, zengine_jupyter\n"
        "zengine_jupyter.Agent, zengine_jupyter.AgentResult\n"
        "from zengine_jupyter.kernel import Agent\n"
        "print(sorted(m for m in sys.modules\n"
        "             if m.split('.')[0] in ('IPython', 'ipykernel', 'ipywidgets', 'anywidget')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"
