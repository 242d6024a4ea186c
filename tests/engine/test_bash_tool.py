"""Bash runs real commands: exit codes, deadlines, long output, background shells."""

from __future__ import annotations

import asyncio

import pytest

from zengine_jupyter.engine.tools import BashOutputTool, BashTool, KillShellTool, ToolContext
from zengine_jupyter.engine.tools._base import INLINE_LIMIT

bash, bash_output, kill = BashTool(), BashOutputTool(), KillShellTool()


async def test_runs_in_the_project_with_exit_code(ctx: ToolContext) -> None:
    ok = await bash.call({"command": "pwd; echo err >&2"}, ctx)
    assert not ok.is_error
    assert ok.content.splitlines() == [str(ctx.root), "err"]
    failed = await bash.call({"command": "echo nope; exit 3"}, ctx)
    assert failed.is_error
    assert failed.content == "nope\n\n[exit code 3]"


async def test_secrets_are_not_in_the_environment(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-should-not-leak")
    out = await bash.call({"command": "env"}, ctx)
    assert "sk-ant-should-not-leak" not in out.content
    assert "PATH=" in out.content


async def test_deadline_stops_the_command(ctx: ToolContext) -> None:
    out = await bash.call({"command": "echo started; sleep 30", "timeout": 0.5}, ctx)
    assert out.is_error
    assert "started" in out.content
    assert "still running after 0.5 s" in out.content


async def test_long_output_goes_to_an_artifact_with_its_end_inline(ctx: ToolContext) -> None:
    out = await bash.call({"command": "seq 1 20000"}, ctx)
    assert not out.is_error
    assert out.artifact is not None
    assert out.artifact.read_text().splitlines()[0] == "1"
    assert out.content.rstrip().endswith("20000")
    assert "showing the end" in out.content
    assert len(out.content) < INLINE_LIMIT + 300


async def test_background_shell_output_and_kill(ctx: ToolContext) -> None:
    started = await bash.call(
        {"command": "for i in 1 2 3; do echo tick $i; sleep 0.1; done; sleep 30",
         "run_in_background": True}, ctx,
    )  # fmt: skip
    assert "shell-1" in started.content
    for _ in range(50):
        out = await bash_output.call({"shell_id": "shell-1"}, ctx)
        if "tick 3" in out.content:
            break
        await asyncio.sleep(0.05)
    assert "[shell-1 running]" in out.content
    stopped = await kill.call({"shell_id": "shell-1"}, ctx)
    assert "shell-1 stopped" in stopped.content
    unknown = await bash_output.call({"shell_id": "shell-9"}, ctx)
    assert unknown.is_error
    assert "shell-1" in unknown.content
