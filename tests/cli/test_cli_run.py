"""``zengine run`` from a plain shell against the local provider server."""

from __future__ import annotations

from pathlib import Path

from zengine_jupyter.testing import (
    Reply,
    ScriptedToolCall,
    configured_provider,
    run_cli,
)


async def test_run_yes_edits_and_runs_then_continue(tmp_path: Path, zengine_home: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "notes.txt").write_text("draft\n")
    async with configured_provider(zengine_home) as server:
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
        code, out, err = await run_cli("run", "--yes", "finish the notes", cwd=project)
        assert code == 0, err
        assert out.strip() == "Notes are final."
        assert "> Bash: cat notes.txt" in err
        assert "ok final" in err
        assert (project / "notes.txt").read_text() == "final\n"

        server.add(Reply(text=("Still final.",)))
        code, out, _ = await run_cli("run", "--continue", "and now?", cwd=project)
        assert code == 0
        assert out.strip() == "Still final."
        history = server.requests[-1].json["messages"]
        assert history[0]["content"][-1]["text"] == "finish the notes"

        # without --yes and without a TTY nothing that asks may run; a failed turn exits 1
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "rm notes.txt"}),)),
            Reply(text=("Understood.",)),
        )
        code, _, err = await run_cli("run", "remove the notes", cwd=project)
        assert code == 0
        denied = "  Denied (nobody answered): this run is non-interactive and nobody could approve."
        assert denied + "\n" in err
        assert (project / "notes.txt").exists()
        server.add(Reply(status=400))
        code, _, err = await run_cli("run", "--continue", "again", cwd=project)
        assert code == 1
        assert "error:" in err
