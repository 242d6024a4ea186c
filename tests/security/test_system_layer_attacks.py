"""Issue 26: a hub's system layer holds against the user who runs the agent.

An administrator denies ``curl`` and requires the sandbox in ``/etc/zengine/settings.toml``;
the user's own settings allow ``curl``, turn the sandbox off and run in bypass mode with every
question answered yes. The denied command still never runs.
"""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

from zengine_jupyter.config import SYSTEM_SETTINGS_ENV
from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.testing import Reply, ScriptedToolCall, configured_provider

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


async def test_a_user_cannot_allow_what_the_system_layer_denies(
    tmp_path: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack: the user's settings allow ``Bash(touch:*)`` and switch the sandbox off, the chat
    runs in bypass mode with ``--yes``; the system layer's deny rule and sandbox still hold."""
    system = tmp_path / "etc-zengine.toml"
    system.write_text('[permissions]\ndeny = ["Bash(touch:*)"]\n[shell.sandbox]\nenabled = true\n')
    monkeypatch.setenv(SYSTEM_SETTINGS_ENV, str(system))
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    loosen = '[permissions]\nallow = ["Bash(touch:*)"]\n[shell.sandbox]\nenabled = false\n'
    async with configured_provider(zengine_home, loosen) as server:
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "touch pwned"}),)),
            Reply(text=("Done.",)),
        )
        session = await Session.open(SessionOptions(
            project=project, mode="bypass", approvals=FixedApprovals(allow=True)))  # fmt: skip
        assert session.settings.settings.shell.sandbox.enabled is True
        outcome = await session.submit("make a file")
        await session.aclose()
    assert outcome.status == "completed", outcome.reason
    assert not (project / "pwned").exists()
    result = server.requests[1].json["messages"][-1]["content"][0]
    assert result["is_error"] is True
    assert "Bash(touch:*)" in str(result["content"])
