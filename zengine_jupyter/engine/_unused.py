"""A chat that never reached the model is not kept: a ``zengine run`` with no key, an unknown
slash command in a new chat, leave no empty chat folder behind."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from zengine_jupyter.protocol import ConfigError, MessageRecord
from zengine_jupyter.store import SessionStore

if TYPE_CHECKING:
    from zengine_jupyter.engine._session import Session

__all__ = [
    "check_project_folder",
    "close_discarding_unused",
    "is_unused",
    "never_reached_model",
]


def check_project_folder(root: Path) -> None:
    """Refuse a project that is not an existing folder, before anything is recorded."""
    if not root.is_dir():
        missing = "not a folder" if root.exists() else "no such folder"
        raise ConfigError(
            f"{missing}: {root}",
            hint="--project must name an existing folder: create it first; no chat was created",
        )


def never_reached_model(session: Session) -> bool:
    """True while the chat holds no answer from the model (and was created by this open)."""
    if not session.created:
        return False
    records = session.writer.state().transcript
    return not any(isinstance(r, MessageRecord) and r.role == "assistant" for r in records)


def is_unused(session: Session, failed: bool) -> bool:
    """A chat this open created that the model never answered, and whose last request failed
    (no key, an unknown command) or that holds nothing but its start (``/help``); a chat
    holding a setting (``/mode plan``) is kept."""
    if not never_reached_model(session):
        return False
    return failed or session.writer.state().records <= 1


async def close_discarding_unused(session: Session, *, failed: bool) -> bool:
    """Close ``session``; when :func:`is_unused`, delete its folder. True if deleted."""
    unused = is_unused(session, failed)
    await session.aclose()
    if unused:
        store = SessionStore(Path(session.writer.folder).parent)
        await asyncio.to_thread(store.remove, session.id)
    return unused
