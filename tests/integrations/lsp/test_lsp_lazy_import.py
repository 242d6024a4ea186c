"""A chat's first request does not wait for the language-server client: the LSP tool is listed
from its query types, and the manager, the client, JSON-RPC and the after-write wait load when
a server is first needed (``engine/lsp/_extension.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_SERVER_SIDE = (
    "zengine_jupyter.integrations.lsp._manager",
    "zengine_jupyter.integrations.lsp._client",
    "zengine_jupyter.integrations.lsp._after_write",
    "zengine_jupyter.integrations.jsonrpc",
)

_CHAT_PROBE = """
import asyncio, json, sys
from pathlib import Path
from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.engine.lsp import LspExtension
from zengine_jupyter.testing import FakeModelClient, Reply

SERVER_SIDE = {server_side!r}

def loaded() -> list[str]:
    return [m for m in SERVER_SIDE if m in sys.modules]

async def main() -> None:
    client = FakeModelClient(Reply(text=("hi",)))
    session = await Session.open(SessionOptions(project=Path(sys.argv[1]), client=client))
    await session.submit("hello")
    sent = [tool.name for tool in client.requests[0].tools]
    before = loaded()
    lsp = next(e for e in session.extensions if isinstance(e, LspExtension))
    root = lsp.manager.root  # the first use: /lsp, the LSP tool, a write
    after = loaded()
    await session.aclose()
    print(json.dumps({{"sent": sent, "before": before, "after": after, "root": str(root)}}))

asyncio.run(main())
"""


def test_a_first_request_lists_the_lsp_tool_without_loading_the_client(tmp_path: Path) -> None:
    env = {**os.environ, "ZENGINE_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-c", _CHAT_PROBE.format(server_side=_SERVER_SIDE), str(tmp_path)],
        capture_output=True, text=True, check=False, timeout=120, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert "LSP" in found["sent"]
    assert found["before"] == []
    # the probe sees them once they load (the after-write wait: at the first write)
    assert found["after"] == [m for m in _SERVER_SIDE if not m.endswith("_after_write")]
    assert found["root"] == str(tmp_path)
