"""Importing the MCP packages must not import the SDK (~0.6 s); only a manager's start does."""

from __future__ import annotations

import subprocess
import sys

_PROBE = """
import sys
import zengine_jupyter.integrations.mcp
import zengine_jupyter.engine.mcp
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
