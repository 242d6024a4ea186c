"""The question a session asks its frontend (design.md "Ports"): may this call run?

The kernel answers with widgets and comm messages, the CLI with a TTY prompt or a fixed
policy. A frontend that cannot ask (non-interactive) answers deny: never "yes" by default.

Trust is no port: the engine never waits for it. An untrusted folder's chat publishes
``TrustRequired`` and runs without the withheld settings; a frontend that trusts the folder
(``TrustStore().trust``) calls ``Session.reload_settings`` on its chats.
"""

from __future__ import annotations

from typing import Protocol

from zengine_jupyter.protocol import ApprovalDecision, ApprovalRequest, CellRunResult

__all__ = ["ApprovalPort", "CellExecutor", "FixedApprovals"]


class ApprovalPort(Protocol):
    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        """Ask the user whether a tool call may run; may wait as long as the user takes."""
        ...


class FixedApprovals:
    """A policy answer for non-interactive runs: ``zengine run --yes`` / ``--no``, papermill."""

    def __init__(self, allow: bool, message: str | None = None) -> None:
        self.allow = allow
        self.message = message or "this run is non-interactive and nobody could approve"

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        if self.allow:
            return ApprovalDecision(action="allow_once")
        return ApprovalDecision(action="deny", message=self.message)


class CellExecutor(Protocol):
    """Runs code in the user's kernel for the ``RunCell`` tool (``kernel/_run_cell.py``).

    Two implementations: headless (``kernel/_headless.py``: the kernel's own namespace, output
    captured, no execution count or history taken) and the notebook's (a visible cell the
    labextension inserts after ``after_cell_id`` and executes). The permission gate has already
    allowed the call; the executor only runs it.
    """

    async def run(
        self, code: str, *, timeout_s: float, after_cell_id: str | None = None
    ) -> CellRunResult:
        """Run ``code``; past ``timeout_s`` seconds raise ``KeyboardInterrupt`` in it and return
        with ``timed_out`` set. Never raises for the code's own errors (they are in
        ``CellRunResult.error``); ``after_cell_id`` places a visible cell (headless ignores it)."""
        ...
