"""The kernel's approval port: a widget click answers, or a policy when nobody can click.

``ask`` runs on the kernel's loop and waits on a future; a click (which may arrive on a
subshell thread) is handed to the loop first and then resolves that future with ``answer``.
In a blocking or non-interactive turn the port answers by policy at once: deny unless the
user said ``--yes``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zengine_jupyter.protocol import ApprovalDecision, ApprovalRequest

__all__ = ["KernelApprovals"]

_NO_FRONTEND = "this cell ran without a frontend to click (--wait or non-interactive)"


class KernelApprovals:
    """One chat's approval port in the kernel."""

    def __init__(self) -> None:
        self.policy: bool | None = None
        """None: ask the widget; True / False: answer allow / deny without asking."""
        self.pending: dict[str, asyncio.Future[ApprovalDecision]] = {}
        self.requests: dict[str, ApprovalRequest] = {}

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        from zengine_jupyter.protocol import ApprovalDecision

        if self.policy is not None:
            if self.policy:
                return ApprovalDecision(action="allow_once")
            return ApprovalDecision(action="deny", message=_NO_FRONTEND, by="no_answer")
        future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
        self.pending[request.id] = future
        self.requests[request.id] = request
        try:
            return await future
        finally:
            self.pending.pop(request.id, None)
            self.requests.pop(request.id, None)

    def answer(self, request_id: str, decision: ApprovalDecision) -> bool:
        """Resolve a waiting question (on the loop's thread); False if none waits."""
        future = self.pending.get(request_id)
        if future is None or future.done():
            return False
        future.set_result(decision)
        return True

    def cancel_all(self) -> None:
        for future in self.pending.values():
            if not future.done():
                future.cancel()
