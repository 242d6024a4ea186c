"""``zengine run`` from a plain shell against the local provider server."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall

ZENGINE = str(Path(sys.executable).with_name("zengine"))


async def zengine(*args: str, cwd: Path) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        ZENGINE, *args, cwd=cwd, env=dict(os.environ),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_run_yes_edits_and_runs_then_continue(tmp_path: Path, zengine_home: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "notes.txt").write_text("draft\n")
    async with ProviderServer() as server:
        (zengine_home / "settings.toml").write_text(
            f'[provider]\nkind = "anthropic"\nbase_url = "{server.base_url}"\n'
            '[model]\nmain = "claude-sonnet-4-6"\n'
        )
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Read", {"path": "notes.txt"}),)),
            Reply(
                tool_calls=(
                    ScriptedToolCall("Write", {"path": "notes.txt", "content": "final\n"}),
                    ScriptedToolCall("Bash", {"command": "cat notes.txt"}),
                )
            ),
            Reply(text=("Notes are final.",)),
        )  # fmt: skip
        code, out, err = await zengine("run", "--yes", "finish the notes", cwd=project)
        assert code == 0, err
        assert out.strip() == "Notes are final."
        assert "> Bash: cat notes.txt" in err
        assert "ok final" in err
        assert (project / "notes.txt").read_text() == "final\n"

        server.add(Reply(text=("Still final.",)))
        code, out, _ = await zengine("run", "--continue", "and now?", cwd=project)
        assert code == 0
        assert out.strip() == "Still final."
        history = server.requests[-1].json["messages"]
        assert history[0]["content"][-1]["text"] == "finish the notes"

        # without --yes and without a TTY nothing that asks may run; a failed turn exits 1
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "rm notes.txt"}),)),
            Reply(text=("Understood.",)),
        )
        code, _, err = await zengine("run", "remove the notes", cwd=project)
        assert code == 0
        assert "denied" in err
        assert (project / "notes.txt").exists()
        server.add(Reply(status=400))
        code, _, err = await zengine("run", "--continue", "again", cwd=project)
        assert code == 1
        assert "error:" in err
