"""The status widget ``%load_ext zengine`` and ``%zengine`` show, and the trust banner in it.

An anywidget (``status_widget.js``) over a raw comm (:mod:`._commwidget`), so loading the
extension imports neither the widget stack nor pydantic. ``%load_ext`` shows the cheap part
(version, project, notebook, data folder); the rest (trust and what is withheld, provider and
model, sandbox backend, MCP servers: :mod:`._status_details`) loads when a view asks for it
(``refresh``), off the kernel's loop. ``%zengine`` loads it at once, so its plain-text
fallback is complete for nbconvert / nbclient outputs.

Messages: the custom widget messages of ``protocol/_widget_wire.py``, built and parsed only
through those models (``_view_messages.py``):

- view -> kernel: :data:`~zengine_jupyter.protocol.StatusWidgetRequest`: ``refresh``;
  ``trust_answer`` with ``trust`` (the banner's "Trust" / "Not now").
- kernel -> view: one :class:`~zengine_jupyter.protocol.WidgetReply` per request (a malformed
  request gets a failed one). Everything else is state
  (:class:`~zengine_jupyter.protocol.StatusWidgetState`): ``info``, ``details`` (null until
  loaded; built through ``StatusDetails``), ``dismissed``, ``busy``, ``error``. The first
  state is built without pydantic, at ``%load_ext``.

Trusting records the folder in the trust store, reloads the settings of every open chat of
that project (a chat in a turn reloads when the turn ends) and shows the widget trusted. "Not
now" hides the banner in every status widget of this kernel; nothing is recorded.
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, Any

from IPython.display import display

from zengine_jupyter.kernel._commwidget import CommWidget
from zengine_jupyter.kernel._esm import widget_css, widget_esm
from zengine_jupyter.kernel._status import KernelStatus, current_status
from zengine_jupyter.kernel._view_messages import parse_request, reply_message
from zengine_jupyter.protocol import WIRE_VERSION

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.kernel._controller import KernelController

__all__ = ["StatusBoard"]

_WIDGET_ID = "zengine_jupyter.kernel.StatusWidget"
_MORE = "`%zengine` for trust, model, sandbox and MCP servers"


class StatusBoard:
    """One kernel's status widgets, the dismissed trust banners and the trust clicks."""

    def __init__(self, controller: KernelController) -> None:
        self._controller = controller
        controller.trust_listeners.append(self._refresh)
        self.dismissed: set[str] = set()
        """Project roots whose banner "Not now" hid in this kernel."""
        self.widgets: list[tuple[Path, CommWidget]] = []
        self.tasks: set[asyncio.Task[Any]] = set()

    # ------------------------------------------------------------------ showing
    def show(self, *, full: bool) -> CommWidget:
        """Display a status widget; ``full`` loads every detail first (``%zengine``)."""
        status = current_status()
        root = status.project_root.resolve()  # as a chat's root
        details: dict[str, Any] | None = None
        error = ""
        if full:
            from zengine_jupyter.kernel._status_details import details_sync

            try:
                details = details_sync(root)
            except Exception as exc:  # never a traceback in the cell
                error = f"status details could not load: {exc}"
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # a terminal IPython: no loop, no frontend to answer
            loop = None
        state = {"v": WIRE_VERSION, "info": _info(status), "details": details,
                 "dismissed": str(root) in self.dismissed, "busy": "", "error": error}  # fmt: skip
        widget = CommWidget(esm=widget_esm("status"), css=widget_css(),
                            state=state, loop=loop, widget_id=_WIDGET_ID)  # fmt: skip
        widget.handler = functools.partial(self._on_request, widget, root)
        self.widgets.append((root, widget))
        display(widget.mimebundle(self._text(status, details, error), status.as_html()), raw=True)
        return widget

    def _text(self, status: KernelStatus, details: dict[str, Any] | None, error: str) -> str:
        if details is None:
            return f"{status.as_text()}\n{error or _MORE}"
        from zengine_jupyter.kernel._status_details import details_lines

        dismissed = str(status.project_root) in self.dismissed
        return "\n".join([status.as_text(), *details_lines(details, dismissed=dismissed)])

    def close(self) -> None:
        """``%unload_ext``: stop pending work, close every status widget."""
        for task in self.tasks:
            task.cancel()
        for _root, widget in self.widgets:
            widget.handler = None
            widget.close()
        self.widgets.clear()

    # ------------------------------------------------------------------ requests
    def _on_request(self, widget: CommWidget, root: Path, content: dict[str, Any]) -> None:
        """On the kernel's loop: run the request as a task; it sends the one reply."""
        request, refused = parse_request("status", content)
        if refused is not None:
            widget.send(refused)
            return
        if request.kind == "refresh":
            work = self._refresh(root)
        else:
            work = self._trust(root, request.trust)
        task = asyncio.get_running_loop().create_task(
            _answer(widget, request.id, work), name="zengine-status-request"
        )
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _same(self, root: Path) -> list[CommWidget]:
        return [w for r, w in self.widgets if r == root and not w.closed]

    async def _refresh(self, root: Path) -> None:
        from zengine_jupyter.kernel._status_details import details_async

        details = await details_async(root)
        for widget in self._same(root):
            widget.set_state(details=details, error="")

    async def _trust(self, root: Path, trust: bool) -> None:
        if not trust:
            self.dismissed.add(str(root))
            for widget in self._same(root):
                widget.set_state(dismissed=True)
            return
        for widget in self._same(root):
            widget.set_state(busy="trusting…")
        try:
            await self._controller.trust(root)  # refreshes the widgets through the listener
        finally:
            for widget in self._same(root):
                widget.set_state(busy="")


async def _answer(widget: CommWidget, request_id: str, work: Any) -> None:
    try:
        await work
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # shown in the widget, never a traceback
        message = str(exc) or type(exc).__name__
        widget.set_state(error=message)
        widget.send(reply_message(request_id, error=message, hint=getattr(exc, "hint", None)))
        return
    widget.send(reply_message(request_id))


def _info(status: KernelStatus) -> dict[str, Any]:
    return {
        "version": status.version,
        "project": str(status.project_root),
        "notebook": str(status.notebook) if status.notebook else None,
        "data": str(status.data_dir),
    }
