"""The Jupyter frontend: ``%load_ext zengine``, the magics, the turn widget, the kernel's own
tool and the panel's comm target; and :class:`Agent`, the small API for scripts.

This is the only layer that may import IPython, ipykernel and the widget stack. Names load
lazily, so ``Agent`` in a plain script imports no IPython.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.protocol import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from zengine_jupyter.kernel._agent import Agent, AgentResult
    from zengine_jupyter.kernel._extension import (
        attach,
        controller_for,
        load_ipython_extension,
        unload_ipython_extension,
    )

__all__ = [
    "Agent",
    "AgentResult",
    "attach",
    "controller_for",
    "load_ipython_extension",
    "unload_ipython_extension",
]

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "Agent": "_agent",
        "AgentResult": "_agent",
        "attach": "_extension",
        "controller_for": "_extension",
        "load_ipython_extension": "_extension",
        "unload_ipython_extension": "_extension",
    },
)
