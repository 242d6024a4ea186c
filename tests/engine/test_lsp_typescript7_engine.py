"""A chat on a TypeScript project with npm's TypeScript 7 (no tsserver) on PATH: the LSP tool
answers through ``tsc --lsp``, a real Edit's result carries the error it introduced, and
``/lsp`` names the TypeScript version. Through the local provider server."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall, provider_settings
from zengine_jupyter.testing.components import require_component
from zengine_jupyter.testing.lsp import require_typescript7

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _call(name: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=(ScriptedToolCall(name, arguments),))


def _result(server: ProviderServer, index: int) -> str:
    block = server.requests[index].json["messages"][-1]["content"][0]
    assert block["type"] == "tool_result"
    content = block["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


async def test_typescript7_answers_and_reports_errors_after_an_edit(
    tmp_path: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_component("node")
    ts7 = require_typescript7(FIXTURES)
    monkeypatch.setenv("PATH", f"{ts7}{os.pathsep}{os.environ.get('PATH', '')}")
    project = tmp_path / "proj"
    shutil.copytree(FIXTURES / "lsp_project_ts", project)
    broken = "  const wrong: number = 'a';\n  return totalArea(build()) + wrong;\n"
    edit = {"path": "main.ts", "old_string": "  return totalArea(build());\n", "new_string": broken}
    async with ProviderServer() as server:
        (zengine_home / "settings.toml").write_text(provider_settings(server.base_url))
        server.add(
            _call("LSP", operation="diagnostics", path="main.ts"),
            _call("LSP", operation="hover", path="main.ts", line=8, column=10),
            _call("Read", path="main.ts"),
            _call("Edit", **edit),
            Reply(text=("done",)),
        )
        session = await Session.open(
            SessionOptions(project=project, approvals=FixedApprovals(True))
        )
        try:
            outcome = await session.submit("check main.ts, then change it")
            status = await session.submit("/lsp")
        finally:
            await session.aclose()
    assert outcome.status == "completed", outcome.reason
    assert _result(server, 1) == "tsc: no diagnostics in main.ts"
    assert "totalArea(shapes: Shape[]): number" in _result(server, 2)
    edited = _result(server, 4)
    assert edited.startswith("Edited main.ts")
    assert "tsc reports 1 error(s) in main.ts:" in edited
    assert "main.ts:8:9: error: " in edited
    lines = {line.split()[0]: line for line in status.text.splitlines()}
    assert re.fullmatch(r"tsc +ready +\.ts .* - TypeScript 7\.0\.2; pid \d+, .*", lines["tsc"])
    assert "safe mode (untrusted project" in lines["tsc"]  # a tmp folder nobody trusted
    assert lines["typescript-language-server"].endswith(
        "not used: TypeScript 7.0.2 has no tsserver; tsc --lsp serves these files"
    )
