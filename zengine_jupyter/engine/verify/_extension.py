"""Verification in a chat: the Verify tool, /checks and /verify, and the badge and modes at
the stop boundary of a turn (``verification.mode``: off, report, auto, strict).

A turn "changed files" when a tool reported ``changed_paths`` or the project's fingerprint
moved for another reason (a Bash command): the fingerprint is taken when the turn starts and
carried past each check run whose own start found the files as expected, so a check's side
effects (caches) are not taken for the agent's changes.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from zengine_jupyter.config import may_run_automatic_checks
from zengine_jupyter.engine._extension import SessionExtension
from zengine_jupyter.engine.verify._checks import ChatChecks, Reporter, summary
from zengine_jupyter.engine.verify._commands import checks_command, verify_command
from zengine_jupyter.engine.verify._runner import ShellCheckRunner
from zengine_jupyter.engine.verify._tool import VerifyTool
from zengine_jupyter.host import workspace_fingerprint
from zengine_jupyter.protocol import VerificationMode
from zengine_jupyter.verify import (
    RunCheckOptions,
    StopAction,
    StopDecision,
    StopState,
    assess,
    decide_stop,
    select_checks,
    unsaved_notebooks,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from zengine_jupyter.engine._session import Session
    from zengine_jupyter.engine._turn import TurnOutcome
    from zengine_jupyter.engine.tools import Tool, ToolOutput
    from zengine_jupyter.host import Fingerprint
    from zengine_jupyter.protocol import (
        CheckRecord,
        CheckSpec,
        RecordedToolCall,
        VerificationOutcome,
    )

__all__ = ["VerificationExtension"]

_TAIL_LINES = 60


@dataclass
class _Turn:
    """What one turn changed, for the badge."""

    turn_id: str | None = None
    baseline: str | None = None
    """The fingerprint the files had when the turn started (moved past clean check runs)."""
    pending: asyncio.Task[Fingerprint] | None = None
    """The baseline being computed (from ``turn_started``): awaited before the first tool
    call runs, or at the stop of a turn without one."""
    other_changes: bool = False
    """The fingerprint moved outside any tool's ``changed_paths`` (a Bash command)."""
    paths: set[str] = field(default_factory=set)
    continuations: int = 0


class VerificationExtension(SessionExtension):
    """One per chat: checks are discovered when it opens (nothing runs then)."""

    name = "verification"

    def __init__(self) -> None:
        self.session: Session | None = None
        self.chat: ChatChecks | None = None
        self.turn = _Turn()
        self.chat_paths: set[str] = set()

    # ------------------------------------------------------------------ hooks
    async def start(self, session: Session) -> None:
        self.session = session
        self.chat = ChatChecks(session.root)
        await self.chat.load(session.settings)
        self.chat.replay(session.writer.state().transcript)
        session.tools[VerifyTool.name] = VerifyTool(self)
        session.commands["checks"] = checks_command(self)
        session.commands["verify"] = verify_command(self)

    async def reload(self, session: Session) -> None:
        await self.state.load(session.settings)

    async def turn_started(self, session: Session, turn_id: str) -> None:
        self._drop_pending()
        self.turn = _Turn(turn_id=turn_id)
        if self.mode is not VerificationMode.OFF:  # off: no badge, no walk of the tree
            # walked while the first request is built and sent; no tool runs before it is done
            self.turn.pending = asyncio.get_running_loop().create_task(
                workspace_fingerprint(session.root), name="zengine-verify-baseline"
            )

    async def before_first_tool(self, session: Session, turn_id: str) -> None:
        await self._baseline()

    async def _baseline(self) -> None:
        """The turn's baseline, once its walk (started with the turn) is done."""
        pending, self.turn.pending = self.turn.pending, None
        if pending is not None:
            self.turn.baseline = (await pending).digest

    def _drop_pending(self) -> None:
        if self.turn.pending is not None:
            self.turn.pending.cancel()
            self.turn.pending = None

    async def aclose(self) -> None:
        self._drop_pending()

    async def after_write(
        self, session: Session, call: RecordedToolCall, tool: Tool[Any], output: ToolOutput
    ) -> ToolOutput:
        for path in output.changed_paths:
            rel = _relative(session.root, path)
            self.turn.paths.add(rel)
            self.chat_paths.add(rel)
        return output

    async def at_stop(self, session: Session, outcome: TurnOutcome) -> str | None:
        await self._baseline()  # a turn without tool calls: its walk is awaited here
        for path in outcome.changed:
            self.turn.paths.add(_relative(session.root, path))
        mode = self.mode
        if mode is VerificationMode.OFF:
            self._reporter().badge(assess((), fingerprint="", changed_files=False, mode=mode))
            return None
        settings = session.settings.settings.verification
        automatic = may_run_automatic_checks(mode.value, trusted=session.settings.trusted)
        ran = False
        while True:
            fingerprint = (await workspace_fingerprint(session.root)).digest
            state = StopState(
                mode=mode,
                outcome=self._assess(fingerprint),
                fingerprint=fingerprint,
                auto_checks=tuple(self._auto_checks()),
                continuations_used=self.turn.continuations,
                max_continuations=settings.max_continuations,
                trusted=session.settings.trusted,
                records=tuple(self.state.records),
            )
            decision = decide_stop(state)
            if decision.action is StopAction.RUN_CHECKS and automatic and not ran:
                ran = True  # once per stop: a check that keeps changing files cannot loop
                await self.run_checks(decision.checks)
                continue
            self._reporter().badge(state.outcome)
            if decision.action is StopAction.SEND_BACK:
                self.turn.continuations += 1
                return _send_back(mode, decision)
            return None

    # ------------------------------------------------------------------ used by the tool
    @property
    def state(self) -> ChatChecks:
        assert self.chat is not None, "the verification extension has not started"
        return self.chat

    @property
    def mode(self) -> VerificationMode:
        assert self.session is not None
        return VerificationMode(self.session.settings.settings.verification.mode)

    def changed_paths(self) -> list[str]:
        """Paths changed in this turn; else in this chat; else the project root (a Bash-only
        change selects the root folder's checks)."""
        return sorted(self.turn.paths or self.chat_paths) or [""]

    def relevant(self) -> list[CheckSpec]:
        return select_checks(self.state.checks, self.changed_paths())

    def _auto_checks(self) -> list[CheckSpec]:
        assert self.session is not None
        wanted = self.session.settings.settings.verification.auto_checks
        if wanted:
            return self.state.by_id(wanted)
        return self.relevant()

    def _changed(self, fingerprint: str) -> bool:
        return (
            bool(self.turn.paths)
            or self.turn.other_changes
            or (self.turn.baseline is not None and fingerprint != self.turn.baseline)
        )

    def _assess(self, fingerprint: str) -> VerificationOutcome:
        outcome = assess(self.state.records, fingerprint=fingerprint,
                         changed_files=self._changed(fingerprint), mode=self.mode)  # fmt: skip
        return unsaved_notebooks(outcome, self._unsaved())

    def _unsaved(self) -> list[str]:
        """Notebooks this turn changed that a page has open with unsaved changes (the agent's
        live edits): the checks verified their saved files, not what the user sees."""
        assert self.session is not None
        live = self.session.ctx.live
        if live is None:
            return []
        root = self.session.root
        return [p for p in sorted(self.turn.paths)
                if p.endswith(".ipynb") and live.state(root / p) == "unsaved"]  # fmt: skip

    async def badge_now(self) -> VerificationOutcome:
        assert self.session is not None
        return self._assess((await workspace_fingerprint(self.session.root)).digest)

    def _reporter(self, in_turn: bool = True) -> Reporter:
        assert self.session is not None
        turn_id = self.turn.turn_id if in_turn else None
        return Reporter(self.session.journal, self.session.id, turn_id)

    async def run_checks(
        self, checks: Sequence[CheckSpec], *, in_turn: bool = True
    ) -> list[CheckRecord]:
        """Run through the chat's shell runner; journal each record; publish the events
        (``in_turn``: they belong to the running turn; /verify's belong to none)."""
        session = self.session
        assert session is not None
        options = RunCheckOptions(
            project_root=session.root,
            artifacts_dir=session.ctx.artifacts,
            runner=ShellCheckRunner(session.ctx.shells),
        )
        reporter = self._reporter(in_turn)
        records = await self.state.run(checks, options, reporter)
        for record in records:
            if self.turn.baseline is not None:
                if record.fingerprint_before != self.turn.baseline:
                    self.turn.other_changes = True
                self.turn.baseline = record.fingerprint_after
        if records:
            reporter.badge(self._assess(records[-1].fingerprint_after))
        return records


def _relative(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _send_back(mode: VerificationMode, decision: StopDecision) -> str:
    """The message the model gets when verification sends the turn back."""
    if not decision.failures:
        return f"[verification, mode {mode.value}] {decision.reason}."
    head = f"[verification, mode {mode.value}] Checks failed after your changes: "
    parts = [head + f"{decision.reason}. Fix the cause; the checks run again when you finish."]
    for record in decision.failures:
        tail = record.output_tail.rstrip().splitlines()[-_TAIL_LINES:]
        parts.append(summary(record) + "\n" + "\n".join(tail))
    return "\n\n".join(parts)
