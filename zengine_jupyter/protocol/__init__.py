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
        JsonRpcClosedError,
        JsonRpcError,
        JsonRpcFramingError,
        JsonRpcRemoteError,
        JsonRpcTimeoutError,
        LspError,
        LspUnavailableError,
        NotAvailableError,
        ProcessError,
        ProcessTimeoutError,
        ZengineError,
    )
    from zengine_jupyter.protocol._lsp import LspServerState, LspServerStatus
    from zengine_jupyter.protocol._status import ComponentStatus, DoctorReport

__all__ = [
    "REWIND_LIMITS",
    "CheckpointError",
    "CheckpointInfo",
    "CheckpointsOff",
    "CodeRestore",
    "ComponentMissingError",
    "ComponentStatus",
    "ConfigError",
    "DoctorReport",
    "JsonRpcClosedError",
    "JsonRpcError",
    "JsonRpcFramingError",
    "JsonRpcRemoteError",
    "JsonRpcTimeoutError",
    "LspError",
    "LspServerState",
    "LspServerStatus",
    "LspUnavailableError",
    "NotAvailableError",
    "NotStored",
    "ProcessError",
    "ProcessTimeoutError",
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
        "JsonRpcClosedError": "_errors",
        "JsonRpcError": "_errors",
        "JsonRpcFramingError": "_errors",
        "JsonRpcRemoteError": "_errors",
        "JsonRpcTimeoutError": "_errors",
        "LspError": "_errors",
        "LspServerState": "_lsp",
        "LspServerStatus": "_lsp",
        "LspUnavailableError": "_errors",
        "NotAvailableError": "_errors",
        "ProcessError": "_errors",
        "ProcessTimeoutError": "_errors",
        "ZengineError": "_errors",
    },
)
