"""The Jupyter frontend: ``%load_ext zengine``, the magics, the turn widget, the kernel's own
tool and the panel's comm target.

This is the only layer that may import IPython, ipykernel and the widget stack.
"""

from zengine_jupyter.kernel._extension import (
    attach,
    controller_for,
    load_ipython_extension,
    unload_ipython_extension,
)

__all__ = ["attach", "controller_for", "load_ipython_extension", "unload_ipython_extension"]
