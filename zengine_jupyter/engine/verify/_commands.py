"""``/checks`` (what Verify can run, and the badge now) and ``/verify [ID ...]``.

``/verify`` is the user's own request: it runs without asking the gate, through the same
shell runner (so the sandbox still applies), and records like the Verify tool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.engine._extension import CommandResult
from zengine_jupyter.engine.verify._checks import summary

if TYPE_CHECKING:
    from zengine_jupyter.engine._extension import SlashCommand
    from zengine_jupyter.engine._session import Session
    from zengine_jupyter.engine.verify._extension import VerificationExtension

__all__ = ["checks_command", "verify_command"]


def checks_command(owner: VerificationExtension) -> SlashCommand:
    async def checks(session: Session, args: str) -> CommandResult:
        chat = owner.chat
        if chat is None or not chat.checks:
            return CommandResult(
                "no checks found (add [[verification.checks]] entries to define some)"
            )
        width = max(len(c.id) for c in chat.checks)
        rows = [f"{c.id:<{width}}  {c.kind:<9}  {c.source:<10}  {c.display_command()}"
                for c in chat.checks]  # fmt: skip
        badge = await owner.badge_now()
        rows.append(f"mode {owner.mode.value} · badge {badge.badge.value}: {badge.reason}")
        return CommandResult("\n".join(rows))

    return checks


def verify_command(owner: VerificationExtension) -> SlashCommand:
    async def verify(session: Session, args: str) -> CommandResult:
        chat = owner.chat
        assert chat is not None
        ids = args.split()
        unknown = chat.unknown(ids)
        if unknown:
            known = ", ".join(c.id for c in chat.checks) or "none"
            return CommandResult(f"unknown check(s) {', '.join(unknown)}; known: {known}")
        chosen = chat.by_id(ids) if ids else (owner.relevant() or chat.checks)
        if not chosen:
            return CommandResult("no checks to run (see /checks)")
        records = await owner.run_checks(chosen, in_turn=False)
        # the badge is the run's own VerificationChanged event (each view shows it once)
        return CommandResult("\n".join(summary(r) for r in records))

    return verify
