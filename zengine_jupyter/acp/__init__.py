"""The Agent Client Protocol frontend: ``zengine acp`` serves the engine to ACP clients
(jupyter-ai 3.x, Zed, JetBrains, Neovim, Emacs, marimo) over stdio."""

from zengine_jupyter.acp._agent import AUTH_METHOD, ZengineAgent
from zengine_jupyter.acp._serve import serve_stdio

__all__ = ["AUTH_METHOD", "ZengineAgent", "serve_stdio"]
