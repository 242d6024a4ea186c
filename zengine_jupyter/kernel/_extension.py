"""``%load_ext zengine`` / ``%unload_ext zengine``: register and remove everything we add.

Loading imports nothing heavy (no mcp, no httpx client, no language-server code, no widget
stack): those load on first use. Unloading cancels turns, closes the turn widgets and closes
every chat (which stops its MCP and language servers).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zengine_jupyter.kernel._comm import COMM_TARGET, open_comm
from zengine_jupyter.kernel._magics import MAGIC_NAMES, ZengineMagics

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from zengine_jupyter.kernel._controller import KernelController

__all__ = ["attach", "controller_for", "load_ipython_extension", "unload_ipython_extension"]


@dataclass
class _Registration:
    magics: ZengineMagics
    comm_manager: Any = None


_loaded: weakref.WeakKeyDictionary[InteractiveShell, _Registration] = weakref.WeakKeyDictionary()


def load_ipython_extension(ipython: InteractiveShell) -> None:
    """Called by ``%load_ext zengine``; loading twice only shows the status again."""
    attach(ipython)
    _loaded[ipython].magics.status.show(full=False)
    _loaded[ipython].magics.offer_setup()


def attach(ipython: InteractiveShell) -> None:
    """Register everything without showing the status: what the side panel runs (silently)
    when the kernel has no ``zengine`` comm target yet. It does not go through IPython's
    extension manager, so a later ``%load_ext zengine`` in the notebook still shows the status
    instead of "already loaded"."""
    if ipython in _loaded:
        return
    magics = ZengineMagics(ipython)
    ipython.register_magics(magics)
    reg = _Registration(magics)
    manager = getattr(getattr(ipython, "kernel", None), "comm_manager", None)
    if manager is not None:
        manager.register_target(COMM_TARGET, open_comm)
        reg.comm_manager = manager
    _loaded[ipython] = reg


def unload_ipython_extension(ipython: InteractiveShell) -> None:
    """Called by ``%unload_ext zengine``: stop every turn and chat, remove what we added."""
    reg = _loaded.pop(ipython, None)
    if reg is None:
        return
    reg.magics.status.close()
    for widget in reg.magics.side_widgets:
        widget.close()
    reg.magics.side_widgets.clear()
    reg.magics.controller.close()
    manager = ipython.magics_manager
    for kind, name in MAGIC_NAMES:
        manager.magics[kind].pop(name, None)
    manager.registry.pop(type(reg.magics).__name__, None)
    if reg.comm_manager is not None:
        reg.comm_manager.unregister_target(COMM_TARGET, open_comm)


def controller_for(ipython: InteractiveShell) -> KernelController | None:
    """The kernel's controller while zengine is loaded (tests and frontends add extensions)."""
    reg = _loaded.get(ipython)
    return reg.magics.controller if reg else None
