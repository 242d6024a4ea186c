"""Engine-side language servers: the chat's :class:`LspExtension` (one ``LspManager`` per
chat, the LSP tool, errors appended after writes, ``/lsp``)."""

from zengine_jupyter.engine.lsp._extension import LspExtension, lsp_entries
from zengine_jupyter.engine.lsp._tool import LspInput, LspTool

__all__ = ["LspExtension", "LspInput", "LspTool", "lsp_entries"]
