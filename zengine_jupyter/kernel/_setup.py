"""Provider setup in the kernel: the answers to the setup view's requests (the panel's comm
and the ``%zengine setup`` widget send the same ones, ``protocol/_setup.py``), and the widget.

The widget is an anywidget over a raw comm (:mod:`._commwidget`), like the status widget, so
``%load_ext`` can show it when nothing is configured without importing the widget stack or
pydantic: its state (:class:`~zengine_jupyter.protocol.SetupWidgetState`: ``notice``,
``saved``) is a plain dict at first; every request is parsed, and every reply built, through
the models (``_view_messages.py``). Requests run as tasks of the controller (cancelled by
``%unload_ext``); the key of a ``setup_key`` request is stored and dropped, never echoed.

A save reloads the settings of every open chat (a chat in a turn reloads when it ends) and
tells their views with a ``notice`` (topic ``model``), so ``/model`` shows the new choice.
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, Any

from zengine_jupyter.kernel._commwidget import CommWidget
from zengine_jupyter.kernel._esm import widget_css, widget_esm
from zengine_jupyter.kernel._status import current_status
from zengine_jupyter.kernel._view_messages import parse_request, reply_message
from zengine_jupyter.protocol import WIRE_VERSION

if TYPE_CHECKING:
    from zengine_jupyter.kernel._controller import KernelController
    from zengine_jupyter.protocol import SetupAnswer, SetupChoice

__all__ = ["NOTHING_CONFIGURED", "answer_setup", "show_setup"]

_WIDGET_ID = "zengine_jupyter.kernel.SetupWidget"
NOTHING_CONFIGURED = (
    "No model is connected yet. Choose one here (Anthropic, OpenAI, an OpenAI-compatible URL "
    "or a local Ollama / LM Studio), set ANTHROPIC_API_KEY or OPENAI_API_KEY before starting "
    "Jupyter, or replay a recording (%env ZENGINE_CASSETTE=FILE)."
)
_TEXT = "zengine setup: `%zengine setup` in JupyterLab shows the provider setup view"


async def answer_setup(controller: KernelController, request: Any) -> SetupAnswer:
    """The answer to one parsed ``setup_*`` request (raises what the engine raises)."""
    from zengine_jupyter import engine
    from zengine_jupyter.protocol import SetupAnswer

    root = current_status().project_root.resolve()
    kind = request.kind
    if kind == "setup_state":
        return SetupAnswer(state=await engine.setup_state(root))
    if kind == "setup_find_local":
        return SetupAnswer(servers=await engine.setup_find_local(root))
    if kind == "setup_models":
        models, note = await engine.setup_models(request.provider, request.base_url)
        return SetupAnswer(models=models, models_note=note)
    if kind == "setup_key":
        return SetupAnswer(
            key=await engine.setup_store_key(request.provider, request.base_url, request.key)
        )
    if kind == "setup_test":
        return SetupAnswer(test=await engine.setup_test(request.choice))
    saved = await engine.setup_save(request.choice, root)
    reloaded = await _reload_chats(controller, request.choice)
    text = f"{saved.text} {reloaded}".strip()
    return SetupAnswer(saved=saved.model_copy(update={"text": text}))


async def _reload_chats(controller: KernelController, choice: SetupChoice) -> str:
    """Reload every open chat's settings; words for how many use the choice now."""
    from zengine_jupyter.protocol import Notice

    roots = {chat.session.root for chat in controller.chats.values()}
    for root in roots:
        await controller.reload_settings(root)
    for chat in list(controller.chats.values()):
        when = "from the end of this turn" if chat.session.busy else "now"
        text = f"model: {choice.model} (set up in settings.toml), {when}"
        chat.session.bus.publish(Notice(session_id=chat.session.id, topic="model", text=text))
    count = len(controller.chats)
    if not count:
        return "The next chat uses it."
    return f"{count} open chat{'s' if count > 1 else ''} use{'s' if count == 1 else ''} it now."


def show_setup(controller: KernelController, notice: str = "") -> CommWidget:
    """Display a setup widget (``notice``: why it is shown unasked)."""
    from IPython.display import display

    try:
        loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:  # a terminal IPython: no frontend to answer
        loop = None
    state = {"v": WIRE_VERSION, "notice": notice, "saved": ""}
    widget = CommWidget(esm=widget_esm("setup"), css=widget_css(), state=state, loop=loop,
                        widget_id=_WIDGET_ID)  # fmt: skip
    widget.handler = functools.partial(_on_request, controller, widget)
    text = f"zengine: {notice}\n{_TEXT}" if notice else _TEXT
    display(widget.mimebundle(text), raw=True)
    return widget


def _on_request(controller: KernelController, widget: CommWidget, content: dict[str, Any]) -> None:
    """On the kernel's loop: parse, then answer in a task the controller owns."""
    request, refused = parse_request("setup", content)
    if refused is not None:
        widget.send(refused)
        return
    controller.spawn(_answer(controller, widget, request), "zengine-setup-request")


async def _answer(controller: KernelController, widget: CommWidget, request: Any) -> None:
    try:
        answer = await answer_setup(controller, request)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # shown in the widget, never a traceback
        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        widget.send(reply_message(request.id, error=message, hint=getattr(exc, "hint", None)))
        return
    if answer.saved is not None:
        widget.set_state(saved=answer.saved.text)
    widget.send(reply_message(request.id, setup=answer))
