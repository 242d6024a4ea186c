"""zengine-jupyter: a coding agent that lives in a Jupyter kernel.

The package root stays tiny so that ``%load_ext zengine`` is fast: the kernel
hooks are imported only when IPython asks for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zengine_jupyter._version import __version__

if TYPE_CHECKING:
    from zengine_jupyter.kernel import (
        Agent,
        AgentResult,
        load_ipython_extension,
        unload_ipython_extension,
    )

__all__ = [
    "Agent",
    "AgentResult",
    "__version__",
    "_jupyter_labextension_paths",
    "load_ipython_extension",
    "unload_ipython_extension",
]


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where JupyterLab finds the prebuilt side panel (``labextension/`` here, built by hatch)."""
    return [{"src": "labextension", "dest": "zengine-jupyter"}]


def __getattr__(name: str) -> Any:
    if name in ("Agent", "AgentResult", "load_ipython_extension", "unload_ipython_extension"):
        from zengine_jupyter import kernel  # lazy: Agent imports no IPython

        return getattr(kernel, name)
    raise AttributeError(f"module 'zengine_jupyter' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
