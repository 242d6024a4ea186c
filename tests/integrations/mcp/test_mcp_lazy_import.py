"""Importing the MCP packages must not import the SDK (~0.6 s); only a manager's start does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_PROBE = """
import sys
import zengine_jupyter.integrations.mcp
import zengine_jupyter.engine.mcp
import zengine_jupyter.engine
from zengine_jupyter.engine._extension import EXTENSIONS
[make() for make in EXTENSIONS]
from zengine_jupyter.integrations.mcp import McpManager, McpServerEntry
McpManager(McpServerEntry("x", command="true"))
print(sorted(m for m in ("mcp", "mcp_types", "httpx2", "anyio") if m in sys.modules))
"""


def test_importing_the_mcp_packages_does_not_import_the_sdk() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]", done.stdout


def test_the_probe_can_see_the_sdk_once_a_manager_module_imports_it() -> None:
    """The check above could not pass vacuously: the connection module does bring mcp in."""
    probe = "import sys, zengine_jupyter.integrations.mcp._connection; print('mcp' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "True"


_CHAT_PROBE = """
import asyncio, sys
from pathlib import Path
from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.testing import FakeModelClient, Reply

async def main() -> None:
    client = FakeModelClient(Reply(text=("hi",)))
    session = await Session.open(SessionOptions(project=Path(sys.argv[1]), client=client))
    assert "mcp" in session.commands  # the MCP extension is on
    await session.submit("hello")
    await session.aclose()

asyncio.run(main())
print(sorted(m for m in ("mcp", "mcp_types") if m in sys.modules))
"""


def test_a_chat_without_mcp_servers_never_imports_the_sdk(tmp_path: Path) -> None:
    """The engine registers the MCP extension for every chat; with no server configured the
    SDK stays out (and the engine package itself does not import it)."""
    env = {**os.environ, "ZENGINE_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-c", _CHAT_PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout
