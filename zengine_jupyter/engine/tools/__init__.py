"""The built-in tools: Read, Write, Edit, NotebookEdit, Glob, Grep, Bash (and its
background shells). Later parts register Verify, LSP, Task and the MCP tools beside them."""

from typing import Any

from zengine_jupyter.engine.tools._base import (
    INLINE_LIMIT,
    Tool,
    ToolContext,
    ToolInput,
    ToolKind,
    ToolOutput,
    in_thread,
)
from zengine_jupyter.engine.tools._bash import BashOutputTool, BashTool, KillShellTool
from zengine_jupyter.engine.tools._files import EditTool, ReadTool, ReadTracker, WriteTool
from zengine_jupyter.engine.tools._live import LiveDocuments, LiveState
from zengine_jupyter.engine.tools._notebook_edit import NotebookEditTool
from zengine_jupyter.engine.tools._read_check import GateReads
from zengine_jupyter.engine.tools._search import GlobTool, GrepTool
from zengine_jupyter.engine.tools._shells import ShellRunner

__all__ = [
    "INLINE_LIMIT",
    "BashOutputTool",
    "BashTool",
    "EditTool",
    "GateReads",
    "GlobTool",
    "GrepTool",
    "KillShellTool",
    "LiveDocuments",
    "LiveState",
    "NotebookEditTool",
    "ReadTool",
    "ReadTracker",
    "ShellRunner",
    "Tool",
    "ToolContext",
    "ToolInput",
    "ToolKind",
    "ToolOutput",
    "WriteTool",
    "builtin_tools",
    "in_thread",
]


def builtin_tools() -> list[Tool[Any]]:
    """One instance of each built-in tool, in the order the model sees them."""
    return [
        ReadTool(), WriteTool(), EditTool(), NotebookEditTool(), GlobTool(), GrepTool(),
        BashTool(), BashOutputTool(), KillShellTool(),
    ]  # fmt: skip
