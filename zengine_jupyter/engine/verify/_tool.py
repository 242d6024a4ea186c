"""The Verify tool: run checks and record them (the only way a test run counts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

from zengine_jupyter.engine.tools import Tool, ToolContext, ToolInput, ToolOutput
from zengine_jupyter.protocol import ToolError

if TYPE_CHECKING:
    from zengine_jupyter.engine.verify._extension import VerificationExtension
    from zengine_jupyter.protocol import CheckSpec

__all__ = ["VerifyInput", "VerifyTool"]

_TAIL_LINES = 40


class VerifyInput(ToolInput):
    checks: list[str] = Field(
        default_factory=list,
        description="Check ids to run (see the list in this tool's description); empty: the "
        "checks relevant to the files changed.",
    )


class VerifyTool(Tool[VerifyInput]):
    """Runs checks through the gate (kind execute, rule name ``Verify``) and the shell runner."""

    name = "Verify"
    kind = "execute"
    description = (
        "Run the project's checks (tests, build, typecheck, lint, format) and record the "
        "result as evidence for the verification badge. Only runs through Verify count: "
        "a test run through Bash is not recorded. With no ids, runs the checks relevant to "
        "the files changed."
    )
    Input = VerifyInput

    def __init__(self, owner: VerificationExtension) -> None:
        self.owner = owner

    def parse(self, arguments: dict[str, Any]) -> VerifyInput:
        """Unknown ids are the model's mistake: refused before the gate asks anyone."""
        args = super().parse(arguments)
        self.chosen(args)
        return args

    def chosen(self, args: VerifyInput) -> list[CheckSpec]:
        if not args.checks:
            return self.owner.relevant()
        unknown = self.owner.state.unknown(args.checks)
        if unknown:
            known = ", ".join(c.id for c in self.owner.state.checks) or "none"
            raise ToolError(f"Verify: unknown check(s) {', '.join(unknown)}; known: {known}")
        return self.owner.state.by_id(list(dict.fromkeys(args.checks)))

    def command(self, args: VerifyInput) -> str | None:
        try:
            chosen = self.chosen(args)
        except ToolError:
            return None
        return " && ".join(c.display_command() for c in chosen) or None

    async def run(self, args: VerifyInput, ctx: ToolContext) -> ToolOutput:
        chosen = self.chosen(args)
        if not chosen:
            known = ", ".join(c.id for c in self.owner.state.checks)
            if not known:
                raise ToolError(
                    "Verify: this project has no checks (none discovered from its build files, "
                    "none in [[verification.checks]])"
                )
            raise ToolError(f"Verify: no check is relevant to the changes; name some: {known}")
        records = await self.owner.run_checks(chosen)
        from zengine_jupyter.engine.verify._checks import summary

        lines: list[str] = []
        for record in records:
            lines.append(summary(record))
            if not record.passed:
                tail = record.output_tail.rstrip().splitlines()[-_TAIL_LINES:]
                lines += ["  " + line for line in tail]
            lines.append(f"  whole output: {record.artifact}")
        badge = await self.owner.badge_now()
        lines.append(f"badge now: {badge.badge.value} ({badge.reason})")
        return ToolOutput("\n".join(lines), is_error=not all(r.passed for r in records))
