"""An anywidget without ipywidgets: the comm protocol anywidget's own ``MimeBundleDescriptor``
speaks, so ``%load_ext zengine`` can show a widget without importing the widget stack.

The frontend sees an ordinary anywidget model (``AnyModel`` / ``AnyView`` of the ``anywidget``
module, its ESM and CSS given as strings): it renders with anywidget's
JupyterLab extension.
The kernel side is a ``jupyter.widget`` comm opened with the ``comm`` package (which ipykernel
already loaded): the initial state goes in ``comm_open``, trait changes go out as ``update``
messages, ``request_state`` (a page reload) gets the whole state, and ``custom`` messages reach
:attr:`CommWidget.handler` on the kernel's loop. A comm message may arrive on a kernel subshell
thread: it is only handed to the loop with ``call_soon_threadsafe``.
"""

from __future__ import annotations

import contextlib
import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable

__all__ = ["PROTOCOL_VERSION", "WIDGET_VIEW_MIME", "CommWidget", "anywidget_semver"]

PROTOCOL_VERSION = "2.1.0"
"""The Jupyter widget message protocol version (ipywidgets 8)."""
WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"
_semver: str | None = None


def anywidget_semver() -> str:
    """The module version range anywidget's models declare (``~0.11.*``), found without
    importing anywidget (which imports ipywidgets): its ``.dist-info`` folder's name."""
    global _semver
    if _semver is None:
        version = _installed_version()
        major, minor, rest = [*version.split(".", 2), "0", "0"][:3]
        pre = "a" in rest or "b" in rest
        _semver = version if pre else f"~{major}.{minor}.*"
    return _semver


def _installed_version() -> str:
    spec = importlib.util.find_spec("anywidget")
    if spec is not None and spec.origin is not None:
        site = Path(spec.origin).parent.parent
        for info in site.glob("anywidget-*.dist-info"):
            return info.name[len("anywidget-") : -len(".dist-info")]
    from importlib.metadata import version  # an unusual layout: ask the slower way

    return version("anywidget")


class CommWidget:
    """One anywidget model over a raw comm (see the module docstring)."""

    def __init__(
        self,
        *,
        esm: str,
        css: str,
        state: dict[str, Any],
        loop: asyncio.AbstractEventLoop | None,
        widget_id: str,
    ) -> None:
        import comm

        semver = anywidget_semver()
        self.state: dict[str, Any] = {
            "_model_module": "anywidget",
            "_model_name": "AnyModel",
            "_model_module_version": semver,
            "_view_module": "anywidget",
            "_view_name": "AnyView",
            "_view_module_version": semver,
            "_view_count": None,
            "_esm": esm,
            "_css": css,
            "_anywidget_id": widget_id,
            **state,
        }
        self._loop = loop
        self.handler: Callable[[dict[str, Any]], None] | None = None
        """Gets each ``custom`` message's content, on the kernel's loop."""
        self.comm: Any = comm.create_comm(
            target_name="jupyter.widget",
            metadata={"version": PROTOCOL_VERSION},
            data={"state": self.state, "buffer_paths": []},
        )
        self.comm.on_msg(self._on_comm_msg)
        self.closed = False

    @property
    def model_id(self) -> str:
        return str(self.comm.comm_id)

    def mimebundle(self, text: str, html: str | None = None) -> dict[str, Any]:
        """The widget view plus plain-text / HTML fallbacks (nbconvert, nbclient outputs)."""
        view = {"model_id": self.model_id, "version_major": 2, "version_minor": 1}
        bundle: dict[str, Any] = {"text/plain": text, WIDGET_VIEW_MIME: view}
        if html is not None:
            bundle["text/html"] = html
        return bundle

    def set_state(self, **changes: Any) -> None:
        """Change traits and tell every view."""
        self.state.update(changes)
        self._send({"method": "update", "state": changes, "buffer_paths": []})

    def send(self, content: dict[str, Any]) -> None:
        """A custom message to every view (``model.on("msg:custom")`` in the ESM)."""
        self._send({"method": "custom", "content": content})

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(Exception):
                self.comm.close()

    def _send(self, data: dict[str, Any]) -> None:
        if not self.closed:
            self.comm.send(data=data)

    # ------------------------------------------------------------ view -> kernel
    def _on_comm_msg(self, msg: dict[str, Any]) -> None:
        """May run on a subshell thread: only hand the message to the kernel's loop."""
        data = msg.get("content", {}).get("data")
        if not isinstance(data, dict) or self._loop is None or self._loop.is_closed():
            return
        self._loop.call_soon_threadsafe(self._handle, data)

    def _handle(self, data: dict[str, Any]) -> None:
        method = data.get("method")
        if method == "request_state":
            self._send({"method": "update", "state": self.state, "buffer_paths": []})
        elif method == "update" and isinstance(data.get("state"), dict):
            self.state.update(data["state"])
        elif method == "custom" and isinstance(data.get("content"), dict) and self.handler:
            self.handler(data["content"])
