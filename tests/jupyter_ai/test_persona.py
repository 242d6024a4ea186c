"""The jupyter-ai persona we ship: registered where jupyter-ai looks, and the command it starts
speaks ACP. (jupyter-ai itself is an optional extra, not installed for the suite: the persona
class is checked from its source, and its command is run for real.)"""

from __future__ import annotations

import ast
import os
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from acp import PROTOCOL_VERSION, spawn_agent_process

from zengine_jupyter.acp import ACP_COMMAND

if TYPE_CHECKING:
    from acp import Client

ROOT = Path(__file__).resolve().parents[2]
PERSONA = ROOT / "zengine_jupyter" / "jupyter_ai" / "__init__.py"


def test_the_persona_is_registered_for_jupyter_ai_and_starts_zengine_acp() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    entry = project["project"]["entry-points"]["jupyter_ai.personas"]["zengine"]
    assert entry == "zengine_jupyter.jupyter_ai:ZengineAcpPersona"
    assert "jupyter-ai-acp-client>=0.3" in project["project"]["optional-dependencies"]["jupyter-ai"]
    tree = ast.parse(PERSONA.read_text())
    persona = next(
        node for node in tree.body
        if isinstance(node, ast.ClassDef) and node.name == "ZengineAcpPersona"
    )  # fmt: skip
    assert [ast.unparse(base) for base in persona.bases] == ["BaseAcpPersona"]
    assert "executable=list(ACP_COMMAND)" in ast.unparse(persona)
    assert (PERSONA.parent / "zengine.svg").is_file()
    assert ACP_COMMAND[1:] == ("-m", "zengine_jupyter.cli", "acp")


class _Silent:
    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        del session_id, update


async def test_the_persona_command_answers_initialize(tmp_path: Path, zengine_home: Path) -> None:
    command, *args = ACP_COMMAND
    client = cast("Client", _Silent())
    async with spawn_agent_process(client, command, *args, env=dict(os.environ), cwd=tmp_path) as (
        conn,
        _proc,
    ):
        init = await conn.initialize(protocol_version=PROTOCOL_VERSION)
    assert init.agent_info is not None
    assert init.agent_info.name == "zengine"
