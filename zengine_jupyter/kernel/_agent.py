"""A small Python API for scripts: ``await Agent(project).run("...")``.

No widgets and no IPython: a chat on ``project``, approvals answered by ``approvals`` (by
default: deny what would ask, as any run without a person to click).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import TracebackType

    from zengine_jupyter.config import PermissionMode
    from zengine_jupyter.engine import ApprovalPort, Session

__all__ = ["Agent", "AgentResult"]


@dataclass(frozen=True)
class AgentResult:
    """What one ``run`` did."""

    text: str
    """The model's last answer."""
    status: str
    """completed, interrupted or failed."""
    changed: list[str] = field(default_factory=list)
    """Files the turn wrote, relative to the project."""
    reason: str | None = None
    session_id: str = ""
    cost: str = ""


class Agent:
    """One chat on a project; each ``run`` is a turn (``async with`` closes it)."""

    def __init__(
        self,
        project: str | Path = ".",
        *,
        session_id: str | None = None,
        mode: PermissionMode | None = None,
        model: str | None = None,
        approvals: ApprovalPort | None = None,
    ) -> None:
        self.project = Path(project)
        self._options: dict[str, Any] = {"session_id": session_id, "mode": mode, "model": model,
                                         "approvals": approvals}  # fmt: skip
        self.session: Session | None = None

    async def run(self, text: str) -> AgentResult:
        """Send ``text`` (or a ``/command``) and wait for the turn to end."""
        from zengine_jupyter.engine import Session, SessionOptions

        if self.session is None:
            self.session = await Session.open(SessionOptions(project=self.project,
                                                             **self._options))  # fmt: skip
        session = self.session
        outcome = await session.submit(text)
        changed = [session.ctx.display(p) for p in dict.fromkeys(outcome.changed)]
        return AgentResult(text=outcome.text, status=outcome.status, changed=changed,
                           reason=outcome.reason, session_id=session.id,
                           cost=session.meter.render())  # fmt: skip

    async def aclose(self) -> None:
        if self.session is not None:
            await self.session.aclose()

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
