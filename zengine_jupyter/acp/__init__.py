"""The Agent Client Protocol frontend: ``zengine acp`` serves the engine to ACP clients
(jupyter-ai 3.x, Zed, JetBrains, Neovim, Emacs, marimo) over stdio."""

import sys

from zengine_jupyter.acp._agent import AUTH_METHOD, ZengineAgent
from zengine_jupyter.acp._serve import serve_stdio

__all__ = ["ACP_COMMAND", "AUTH_METHOD", "ZengineAgent", "serve_stdio"]

ACP_COMMAND = (sys.executable, "-m", "zengine_jupyter.cli", "acp")
"""How a client on this machine starts the agent with this environment (jupyter-ai's persona
runs it; ``zengine acp`` is the same through the console script)."""
