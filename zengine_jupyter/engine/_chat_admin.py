"""The chats list's actions on a chat of the project: rename and delete.

Rename is the ``/title`` path: a :class:`TitleRecord` in the chat's log and meta.json
rewritten; an open chat also tells its views (a ``title`` notice). A chat that is not open is
opened for writing just long enough to append the record (its writer lock: a chat open in
another kernel refuses). Delete moves the chat's folder to the sessions' trash
(``SessionStore.trash``); the caller closes an open chat first. Neither touches the
project's checkpoints: they stay until retention removes them.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from zengine_jupyter.engine._titles import _write, clean_title
from zengine_jupyter.protocol import StoreError, TitleRecord
from zengine_jupyter.store import SessionStore

if TYPE_CHECKING:
    from zengine_jupyter.engine._session import Session

__all__ = ["delete_chat", "rename_chat"]


def _title(text: str) -> str:
    title = clean_title(text)
    if title is None:
        raise StoreError("a chat's title cannot be empty", hint="type a few words")
    return title


async def rename_chat(
    session_id: str, text: str, *, open_chat: Session | None = None,
    store: SessionStore | None = None,
) -> str:  # fmt: skip
    """Rename chat ``session_id`` (``open_chat``: the chat, when it is open here); returns
    the title as stored."""
    title = _title(text)
    if open_chat is not None:
        open_chat.titles.cancel()  # the user's title wins over one still being made
        _write(open_chat, title)
        return title
    await asyncio.to_thread(_rename_closed, store or SessionStore(), session_id, title)
    return title


def _rename_closed(store: SessionStore, session_id: str, title: str) -> None:
    writer = store.open(session_id)
    try:
        writer.append(TitleRecord(title=title))
        writer.write_meta()
    finally:
        writer.close()


async def delete_chat(session_id: str, store: SessionStore | None = None) -> str:
    """Move a closed chat to the trash; returns the sentence the views show."""
    where = await asyncio.to_thread((store or SessionStore()).trash, session_id)
    return (
        f"Deleted chat {session_id}: its log moved to {where} (removed for good after 30 days; "
        "move the folder back to restore it). Its checkpoints stay until retention removes them."
    )
