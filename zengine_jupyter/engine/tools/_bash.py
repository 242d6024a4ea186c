"""Bash, BashOutput and KillShell: the agent's shell commands."""

from __future__ import annotations

from pydantic import Field

from zengine_jupyter.engine.tools._base import (
    INLINE_LIMIT,
    Tool,
    ToolContext,
    ToolInput,
    ToolOutput,
)

__all__ = ["BashOutputTool", "BashTool", "KillShellTool", "tail_text"]

DEFAULT_TIMEOUT_S = 120.0
MAX_TIMEOUT_S = 600.0


def tail_text(output: bytes, limit: int = INLINE_LIMIT) -> tuple[str, bool]:
    """The end of ``output`` as text, at most ``limit`` characters; and whether it was cut."""
    text = output.decode("utf-8", "replace")
    if len(text) <= limit:
        return text, False
    return text[-limit:], True


class BashInput(ToolInput):
    command: str = Field(min_length=1, description="The shell command (bash -c).")
    timeout: float = Field(
        DEFAULT_TIMEOUT_S, gt=0, le=MAX_TIMEOUT_S, description="Seconds before it is stopped."
    )
    run_in_background: bool = Field(
        False, description="Start it and return at once; read it with BashOutput."
    )
    description: str = Field("", description="A few words saying what it does, for the user.")


class BashTool(Tool[BashInput]):
    name = "Bash"
    kind = "execute"
    description = (
        "Run a shell command in the project folder (bash -c). Output is stdout and stderr "
        "together; long output is saved as an artifact and its end is shown. Processes a "
        "command leaves running (`cmd &`, nohup, setsid) are stopped when it ends: use "
        "run_in_background for servers and long jobs. Test runs here are not recorded as "
        "verification: use Verify for checks."
    )
    Input = BashInput

    def command(self, args: BashInput) -> str | None:
        return args.command

    async def run(self, args: BashInput, ctx: ToolContext) -> ToolOutput:
        if args.run_in_background:
            shell = ctx.shells.start(args.command)
            return ToolOutput(
                f"started {shell.id} in the background; read its output with "
                f'BashOutput(shell_id="{shell.id}"), stop it with KillShell'
            )
        result = await ctx.shells.run(args.command, args.timeout)
        text, cut = tail_text(result.output)
        head = ""
        if cut:
            head = (
                f"[output was {len(result.output):,} bytes; showing the end; all of it is in "
                f"{result.artifact}]\n"
            )
        if result.exit_code is None:
            return ToolOutput(
                f"{head}{text}\n[stopped: still running after {args.timeout:g} s]",
                is_error=True,
                artifact=result.artifact,
            )
        status = "" if result.exit_code == 0 else f"\n[exit code {result.exit_code}]"
        return ToolOutput(
            f"{head}{text}{status}" or "(no output)",
            is_error=result.exit_code != 0,
            artifact=result.artifact if cut else None,
        )


class ShellIdInput(ToolInput):
    shell_id: str = Field(description="The id Bash returned, e.g. shell-1.")


class BashOutputTool(Tool[ShellIdInput]):
    name = "BashOutput"
    kind = "read"
    description = "New output of a background shell since the last read, and whether it ended."
    Input = ShellIdInput

    async def run(self, args: ShellIdInput, ctx: ToolContext) -> ToolOutput:
        shell, new = ctx.shells.read(args.shell_id)
        text, cut = tail_text(new)
        state = "running" if shell.exit_code is None else f"exited with code {shell.exit_code}"
        note = f"[earlier output in {shell.artifact}]\n" if cut else ""
        return ToolOutput(f"[{shell.id} {state}]\n{note}{text}")


class KillShellTool(Tool[ShellIdInput]):
    name = "KillShell"
    kind = "other"
    description = "Stop a background shell started by Bash."
    Input = ShellIdInput

    async def run(self, args: ShellIdInput, ctx: ToolContext) -> ToolOutput:
        shell = await ctx.shells.kill(args.shell_id)
        return ToolOutput(
            f"{shell.id} stopped ({shell.total:,} bytes of output in {shell.artifact})"
        )
