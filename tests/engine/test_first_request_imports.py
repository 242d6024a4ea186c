"""What a chat's first request does not load (issue 25: a first turn is mostly imports): with no
MCP server, the sandbox off and an Anthropic provider, the request goes out without the MCP
client's result types, ``host.sandbox``, the OpenAI wire, or any tool's input model built.

The probe is a fresh interpreter talking to the local provider over the real Anthropic wire."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from zengine_jupyter.testing import Reply, provider_in_thread

_NOT_YET = (
    "zengine_jupyter.integrations.mcp._types",
    "zengine_jupyter.integrations.mcp._connection",
    "zengine_jupyter.host.sandbox",
    "zengine_jupyter.llm.openai",
)

_PROBE = """
import asyncio, json, sys
from pathlib import Path
from pydantic._internal._mock_val_ser import MockValSer
from zengine_jupyter.engine import Session, SessionOptions

async def main() -> None:
    session = await Session.open(SessionOptions(project=Path(sys.argv[1])))
    outcome = await session.submit("hello")
    loaded = [m for m in {not_yet!r} if m in sys.modules]
    built = sorted(name for name, tool in session.tools.items()
                   if type(tool.Input.__pydantic_validator__) is not MockValSer)
    await session.aclose()
    print(json.dumps({{"status": outcome.status, "loaded": loaded, "built": built,
                      "anthropic": "zengine_jupyter.llm.anthropic" in sys.modules}}))

asyncio.run(main())
"""


def test_a_first_request_loads_only_what_it_uses(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.py").write_text("x = 1\n")
    with provider_in_thread() as server:
        (home / "settings.toml").write_text(
            f'[provider]\nkind = "anthropic"\nbase_url = "{server.base_url}"\n'
            '[model]\nmain = "claude-sonnet-4-6"\n'
        )
        server.add(Reply(text=("hi",)))
        env = {**os.environ, "ZENGINE_HOME": str(home), "ANTHROPIC_API_KEY": "test-key"}
        done = subprocess.run(
            [sys.executable, "-c", _PROBE.format(not_yet=_NOT_YET), str(project)],
            capture_output=True, text=True, check=False, timeout=120, env=env,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert len(server.requests) == 1
        names = [tool["name"] for tool in server.requests[0].json["tools"]]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["status"] == "completed"
    assert {"Read", "Bash", "Grep", "LSP", "Verify"} <= set(names)  # every tool was listed
    assert found["anthropic"] is True  # the wire in use did load
    assert found["loaded"] == []
    assert found["built"] == []
