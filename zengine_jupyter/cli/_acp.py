"""``zengine acp``: serve the engine to an Agent Client Protocol client over stdio (jupyter-ai
3.x, Zed, JetBrains, Neovim, Emacs, marimo). The client starts it; nobody types into it."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

__all__ = ["acp_command", "add_acp_parser"]


def add_acp_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    acp = commands.add_parser(
        "acp", help="serve the agent over the Agent Client Protocol on stdio (for editors)"
    )
    acp.set_defaults(handler=acp_command)


def acp_command(args: argparse.Namespace) -> int:
    from zengine_jupyter.acp import serve_stdio  # the SDK loads only for this command

    asyncio.run(serve_stdio())
    return 0
