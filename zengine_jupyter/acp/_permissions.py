"""The gate's questions as ACP ``session/request_permission``.

Each approval offers the protocol's four kinds: allow once, allow always (writes the request's
suggested rule to the project's ``settings.local.toml``, as the kernel's "Always" button does),
reject once and reject always (writes it as a deny rule there). A trust question (the project's
settings that are withheld until the folder is trusted) is asked the same way. A request the
client cancels (``session/cancel`` while it waits) is a deny.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from zengine_jupyter.protocol import ApprovalDecision

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from acp.interfaces import Client

    from zengine_jupyter.acp._updates import UpdateMapper
    from zengine_jupyter.protocol import ApprovalRequest, TrustRequired

__all__ = ["AcpApprovals", "ask_trust"]

_CHOICES = {
    "allow_once": ApprovalDecision(action="allow_once"),
    "allow_always": ApprovalDecision(action="always_allow", layer="local"),
    "reject_once": ApprovalDecision(action="deny"),
    "reject_always": ApprovalDecision(action="always_deny", layer="local"),
}


def _options(rule: str) -> list[PermissionOption]:
    return [
        PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
        PermissionOption(
            option_id="allow_always", name=f"Always allow {rule}", kind="allow_always"
        ),
        PermissionOption(option_id="reject_once", name="Deny", kind="reject_once"),
        PermissionOption(
            option_id="reject_always", name=f"Always deny {rule}", kind="reject_always"
        ),
    ]


class AcpApprovals:
    """One ACP session's approval port (the engine's ``ApprovalPort``)."""

    def __init__(
        self, client: Callable[[], Client], session_id: Callable[[], str], mapper: UpdateMapper
    ) -> None:
        self._client = client
        self._session_id = session_id
        self._mapper = mapper

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        title = f"{request.tool}: {request.summary} ({request.reason})"
        view = self._mapper.permission_view(
            request.call_id, request.tool, title, request.diff, request.command
        )
        answer = await self._client().request_permission(
            session_id=self._session_id(),
            tool_call=view,
            options=_options(request.suggested_rule),
        )
        outcome = answer.outcome
        if isinstance(outcome, AllowedOutcome) and outcome.option_id in _CHOICES:
            return _CHOICES[outcome.option_id]
        return ApprovalDecision(action="deny", message="the client cancelled the question")


async def ask_trust(
    client: Client, session_id: str, event: TrustRequired, trust: Callable[[], Awaitable[None]]
) -> bool:
    """Ask whether to trust ``event.folder``; on yes, ``trust()`` (store it, reload the chat)."""
    withheld = ", ".join(event.withheld)
    answer = await client.request_permission(
        session_id=session_id,
        tool_call=ToolCallUpdate(
            tool_call_id=f"trust:{event.folder}",
            title=f"Trust {event.folder}? Its settings set {withheld}, withheld until you do.",
            kind="other",
            status="pending",
        ),
        options=[
            PermissionOption(option_id="trust", name="Trust this folder", kind="allow_always"),
            PermissionOption(option_id="not_now", name="Not now", kind="reject_once"),
        ],
    )
    if isinstance(answer.outcome, AllowedOutcome) and answer.outcome.option_id == "trust":
        await trust()
        return True
    return False
