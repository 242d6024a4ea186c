"""The panel's chat controls (``protocol/_chats.py``): the input footer's options, and the
chats list's rename and delete. Registered in ``_requests.py``'s handler table.

Delete closes the chat first when this kernel has it open (a running turn refuses: stop it
first); a chat open in another kernel refuses through its writer lock. When the deleted chat
was the kernel's current one or a panel followed it, a new chat opens and those panels
follow it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zengine_jupyter.kernel._status import current_status

if TYPE_CHECKING:
    from zengine_jupyter.kernel._comm import PanelComm
    from zengine_jupyter.protocol import Reply

__all__ = ["CHAT_HANDLERS"]


def _ok(request_id: str, **fields: Any) -> Reply:
    from zengine_jupyter.protocol import Reply

    return Reply(id=request_id, ok=True, **fields)


async def _options(view: PanelComm, request: Any) -> Reply:
    from zengine_jupyter.engine import chat_options
    from zengine_jupyter.kernel._requests import _known_chat

    chat = _known_chat(view, request.session_id)
    root = current_status().project_root.resolve()
    options = await chat_options(root, chat.session if chat else None)
    return _ok(request.id, options=options)


async def _rename(view: PanelComm, request: Any) -> Reply:
    from zengine_jupyter.engine import rename_chat

    chat = view.controller.chats.get(request.session_id)
    title = await rename_chat(request.session_id, request.title,
                              open_chat=chat.session if chat else None)  # fmt: skip
    return _ok(request.id, text=f"title: {title}")


async def _delete(view: PanelComm, request: Any) -> Reply:
    from zengine_jupyter.engine import TurnInProgressError, delete_chat
    from zengine_jupyter.kernel._controller import TurnRequest

    controller = view.controller
    sid = request.session_id
    chat = controller.chats.get(sid)
    followers = [v for v in list(controller.views)
                 if v.chat is not None and v.chat.session.id == sid]  # fmt: skip
    was_current = controller.current == sid
    if chat is not None:
        if chat.session.busy:
            raise TurnInProgressError(f"chat {sid} is running a turn: it was not deleted",
                                      hint="stop the turn first, then delete")  # fmt: skip
        controller.chats.pop(sid, None)
        if was_current:
            controller.current = None
        await chat.session.aclose()
    text = await delete_chat(sid)
    if followers or was_current:
        new = await controller._chat(TurnRequest(text="", new=True))
        for follower in followers:
            if follower.chat is None or follower.chat.session.id == sid:
                follower.follow(new, current=True)
    return _ok(request.id, text=text)


CHAT_HANDLERS = {"chat_options": _options, "rename_session": _rename, "delete_session": _delete}
