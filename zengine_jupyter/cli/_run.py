"""``zengine run``: one turn from a plain shell, streamed to the terminal.

The answer goes to stdout; tool calls, approvals and notices go to stderr. Approvals are
asked on a TTY; ``--yes`` / ``--no`` answer them by policy; with neither and no TTY, every
question is answered "deny". Exit status: 0 completed, 1 failed, 130 interrupted (Ctrl-C,
SIGTERM or SIGHUP end the turn as interrupted; whatever the engine started dies with it even on
SIGKILL, see ``host._process``'s child guard).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from typing import TYPE_CHECKING

from zengine_jupyter.engine import (
    FixedApprovals,
    Session,
    SessionOptions,
    approval_outcome,
    check_project_folder,
    close_discarding_unused,
)
from zengine_jupyter.protocol import (
    ApprovalDecision,
    ApprovalRequest,
    EngineError,
    Notice,
    ProviderBusy,
    TextStreamed,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallProposed,
    TrustRequired,
    VerificationChanged,
    ZengineError,
)
from zengine_jupyter.store import SessionStore

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from zengine_jupyter.engine import ApprovalPort, Subscription

__all__ = ["TtyApprovals", "run_command"]

_EXIT = {"completed": 0, "failed": 1, "interrupted": 130}
_STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class TtyApprovals:
    """Asks on the terminal: [y]es once, [a]lways (rule in the project's local settings), [n]o."""

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        what = request.command or ", ".join(request.paths) or request.summary
        sys.stderr.write(f"\n? {request.tool}: {what}\n  ({request.reason})\n")
        prompt = f"  allow? [y]es once / [a]lways ({request.suggested_rule}) / [n]o: "
        reply = (await asyncio.to_thread(_input, prompt)).strip().lower()
        if reply.startswith("a"):
            return ApprovalDecision(action="always_allow", layer="local")
        if reply.startswith("y"):
            return ApprovalDecision(action="allow_once")
        note = (await asyncio.to_thread(_input, "  a note for the agent (optional): ")).strip()
        return ApprovalDecision(action="deny", message=note or None)


def _input(prompt: str) -> str:
    sys.stderr.write(prompt)
    sys.stderr.flush()
    return sys.stdin.readline()


def _approvals(args: argparse.Namespace) -> ApprovalPort:
    if args.yes:
        return FixedApprovals(allow=True)
    if args.no or not sys.stdin.isatty():
        return FixedApprovals(allow=False)
    return TtyApprovals()


def _latest_session(project: Path) -> str | None:
    chats = [m for m in SessionStore().list() if m.project == str(project)]
    return max(chats, key=lambda m: m.updated).id if chats else None


async def _show(events: Subscription) -> None:
    out, err = sys.stdout, sys.stderr
    async for event in events:
        if isinstance(event, TextStreamed):
            out.write(event.text)
            out.flush()
        elif isinstance(event, ToolCallProposed):
            err.write(f"\n> {event.tool}: {event.summary}\n")
        elif isinstance(event, ToolCallFinished):
            first = event.output.strip().splitlines()[:1]
            mark = "x" if event.is_error else "ok"
            err.write(f"  {mark} {first[0][:160] if first else ''}\n")
        elif isinstance(event, ToolCallDenied):
            err.write(f"  {approval_outcome(event)}\n")
        elif isinstance(event, ProviderBusy | Notice):
            err.write(f"  [{event.message if isinstance(event, ProviderBusy) else event.text}]\n")
        elif isinstance(event, VerificationChanged):
            err.write(f"  [verification: {event.badge} ({event.reason})]\n")
        elif isinstance(event, TrustRequired):
            err.write(f"  [this project's {', '.join(event.withheld)} are withheld until you "
                      f"trust it: zengine trust {event.folder}]\n")  # fmt: skip
        elif isinstance(event, EngineError):
            err.write(
                f"\nerror: {event.message}" + (f" ({event.hint})" if event.hint else "") + "\n"
            )
        err.flush()


async def _run(args: argparse.Namespace) -> int:
    project = args.project.resolve()
    check_project_folder(project)  # before anything is recorded
    session_id = args.session or (_latest_session(project) if args.cont else None)
    if args.cont and session_id is None:
        raise ZengineError(f"no earlier chat for {project}", hint="drop --continue to start one")
    session = await Session.open(
        SessionOptions(project=project, session_id=session_id, approvals=_approvals(args),
                       mode=args.mode, model=args.model)
    )  # fmt: skip
    shown = asyncio.create_task(_show(session.subscribe()))
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()

    def stop() -> None:
        """Ctrl-C, a terminal closed, a ``kill``: end the turn as interrupted (its commands are
        stopped and the log closed) rather than die with it half done."""
        if not session.interrupt() and main is not None:
            main.cancel()  # no turn yet: still close the chat on the way out

    for sig in _STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, ValueError, RuntimeError):
            loop.add_signal_handler(sig, stop)
    failed = True
    try:
        outcome = await session.submit(args.prompt)
        failed = outcome.status == "failed"
    except asyncio.CancelledError:
        if main is not None:
            main.uncancel()  # handled: the closing below must not be cancelled too
        return _EXIT["interrupted"]
    finally:
        for sig in _STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, ValueError, RuntimeError):
                loop.remove_signal_handler(sig)
        # closes the bus (the printer drains and ends); a new chat the model never answered
        # (no key, an unknown command) is not kept
        discarded = await close_discarding_unused(session, failed=failed)
        await shown
    sys.stdout.write("\n")
    cost = session.meter.render()  # "$0.0123", or "price unknown" for a model nobody prices
    footer = f"cost {cost}" if cost.startswith("$") else cost
    kept = "no chat was kept (the model was never reached)" if discarded else f"chat {session.id}"
    sys.stderr.write(f"[{kept} · {outcome.status} · {footer}]\n")
    return _EXIT[outcome.status]


def run_command(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))
