"""httpx, imported without its command-line client.

httpx's ``__init__`` imports ``httpx._main`` (its CLI) whenever click, rich and pygments are
installed, as they are beside JupyterLab: 100-150 ms of the 230-290 ms ``import httpx`` takes
here, paid by a fresh kernel's first turn before its request goes out. While httpx loads,
``httpx._main`` is marked missing, so httpx keeps its stub ``httpx.main`` (the CLI, which no
chat runs); the mark is gone once httpx is loaded, so an explicit ``import httpx._main`` still
works. When httpx was already imported (by the user, say) nothing changes.
"""

from __future__ import annotations

import sys

if "httpx" not in sys.modules and "httpx._main" not in sys.modules:
    sys.modules["httpx._main"] = None  # type: ignore[assignment]  # importing it: ImportError
    try:
        import httpx
    finally:
        del sys.modules["httpx._main"]
else:
    import httpx

__all__ = ["httpx"]
