"""Plain data every part shares: errors and the pydantic models sent or persisted.

This is the bottom layer: it imports nothing else from zengine_jupyter. Names load
lazily, so a caller that needs only an error does not import pydantic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.protocol._lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from zengine_jupyter.protocol._checkpoint import (
        REWIND_LIMITS,
        CheckpointInfo,
        CheckpointsOff,
        CodeRestore,
        NotStored,
    )
    from zengine_jupyter.protocol._errors import (
        CheckpointError,
        ComponentMissingError,
        ConfigError,
        McpConnectionError,
        McpRequestError,
        McpServerError,
        NotAvailableError,
        ProcessError,
        ProcessTimeoutError,
        ZengineError,
    )
    from zengine_jupyter.protocol._mcp import McpServerState, McpServerStatus, McpTransportKind
    from zengine_jupyter.protocol._status import ComponentStatus, DoctorReport
    from zengine_jupyter.protocol._tools import TOOL_NAME_PATTERN, ToolDefinition

__all__ = [
    "REWIND_LIMITS",
    "TOOL_NAME_PATTERN",
    "CheckpointError",
    "CheckpointInfo",
    "CheckpointsOff",
    "CodeRestore",
    "ComponentMissingError",
    "ComponentStatus",
    "ConfigError",
    "DoctorReport",
    "McpConnectionError",
    "McpRequestError",
    "McpServerError",
    "McpServerState",
    "McpServerStatus",
    "McpTransportKind",
    "NotAvailableError",
    "NotStored",
    "ProcessError",
    "ProcessTimeoutError",
    "ToolDefinition",
    "ZengineError",
]

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "REWIND_LIMITS": "_checkpoint",
        "CheckpointError": "_errors",
        "CheckpointInfo": "_checkpoint",
        "CheckpointsOff": "_checkpoint",
        "CodeRestore": "_checkpoint",
        "NotStored": "_checkpoint",
        "ComponentMissingError": "_errors",
        "ComponentStatus": "_status",
        "ConfigError": "_errors",
        "DoctorReport": "_status",
        "McpConnectionError": "_errors",
        "McpRequestError": "_errors",
        "McpServerError": "_errors",
        "McpServerState": "_mcp",
        "McpServerStatus": "_mcp",
        "McpTransportKind": "_mcp",
        "TOOL_NAME_PATTERN": "_tools",
        "ToolDefinition": "_tools",
        "NotAvailableError": "_errors",
        "ProcessError": "_errors",
        "ProcessTimeoutError": "_errors",
        "ZengineError": "_errors",
    },
)
