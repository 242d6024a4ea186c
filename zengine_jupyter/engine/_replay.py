"""Say so when the model is a recording: a ``Notice`` at the start of each turn.

The llm layer's ``ReplayClient`` (and ``RecordingClient``) carry a ``notice`` text; any
frontend following the chat shows it, so a replayed answer is never taken for a live one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.engine._extension import SessionExtension
from zengine_jupyter.protocol import Notice

if TYPE_CHECKING:
    from zengine_jupyter.engine._session import Session

__all__ = ["ReplayNoticeExtension"]


class ReplayNoticeExtension(SessionExtension):
    """Publishes the client's ``notice`` (replaying / recording) when a turn starts."""

    name = "replay"

    async def turn_started(self, session: Session, turn_id: str) -> None:
        notice = getattr(session.client, "notice", None)
        if isinstance(notice, str):
            session.bus.publish(
                Notice(session_id=session.id, turn_id=turn_id, topic="replay", text=notice)
            )
