"""An approval port for tests: answers from a table and remembers every question."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from zengine_jupyter.protocol import ApprovalDecision

if TYPE_CHECKING:
    from collections.abc import Mapping

    from zengine_jupyter.protocol import ApprovalRequest

__all__ = ["Action", "RecordingApprovals"]

Action = Literal["allow_once", "always_allow", "deny"]


class RecordingApprovals:
    """Answers each request with ``answers[tool]`` (else ``default``); ``asked`` keeps them.

    ``RecordingApprovals(default="allow_once")`` allows everything, the default denies
    everything with ``message``; "always_allow" answers write their rule to ``layer``.
    """

    def __init__(
        self,
        answers: Mapping[str, Action] | None = None,
        *,
        default: Action = "deny",
        layer: Literal["local", "user"] = "local",
        message: str = "no",
    ) -> None:
        self.answers = dict(answers or {})
        self.default: Action = default
        self.layer: Literal["local", "user"] = layer
        self.message = message
        self.asked: list[ApprovalRequest] = []

    @property
    def tools(self) -> list[str]:
        """The tool of each request, in order."""
        return [request.tool for request in self.asked]

    @property
    def commands(self) -> list[str | None]:
        """The command of each request, in order (None for a call without one)."""
        return [request.command for request in self.asked]

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        action = self.answers.get(request.tool, self.default)
        if action == "deny":
            return ApprovalDecision(action="deny", message=self.message)
        if action == "always_allow":
            return ApprovalDecision(action="always_allow", layer=self.layer)
        return ApprovalDecision(action=action)
