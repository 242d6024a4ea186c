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
        NotAvailableError,
        ProcessError,
        ProcessTimeoutError,
        ToolError,
        ZengineError,
    )
    from zengine_jupyter.protocol._events import (
        ApprovalDecision,
        ApprovalRequest,
        ApprovalRequested,
        CheckpointTaken,
        CheckRecorded,
        CostUpdated,
        EngineError,
        EngineEvent,
        Notice,
        ProviderBusy,
        Resync,
        TextStreamed,
        ThinkingStreamed,
        ToolCallApproved,
        ToolCallDenied,
        ToolCallFinished,
        ToolCallProposed,
        ToolCallStarted,
        TrustRequired,
        TurnEnded,
        TurnStarted,
        VerificationChanged,
    )
    from zengine_jupyter.protocol._status import ComponentStatus, DoctorReport

__all__ = [
    "REWIND_LIMITS",
    "ApprovalDecision",
    "ApprovalRequest",
    "ApprovalRequested",
    "CheckRecorded",
    "CheckpointError",
    "CheckpointInfo",
    "CheckpointTaken",
    "CheckpointsOff",
    "CodeRestore",
    "ComponentMissingError",
    "ComponentStatus",
    "ConfigError",
    "CostUpdated",
    "DoctorReport",
    "EngineError",
    "EngineEvent",
    "NotAvailableError",
    "NotStored",
    "Notice",
    "ProcessError",
    "ProcessTimeoutError",
    "ProviderBusy",
    "Resync",
    "TextStreamed",
    "ThinkingStreamed",
    "ToolCallApproved",
    "ToolCallDenied",
    "ToolCallFinished",
    "ToolCallProposed",
    "ToolCallStarted",
    "ToolError",
    "TrustRequired",
    "TurnEnded",
    "TurnStarted",
    "VerificationChanged",
    "ZengineError",
]

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "ApprovalDecision": "_events",
        "ApprovalRequest": "_events",
        "ApprovalRequested": "_events",
        "CheckRecorded": "_events",
        "CheckpointTaken": "_events",
        "CostUpdated": "_events",
        "EngineError": "_events",
        "EngineEvent": "_events",
        "Notice": "_events",
        "ProviderBusy": "_events",
        "Resync": "_events",
        "TextStreamed": "_events",
        "ThinkingStreamed": "_events",
        "ToolCallApproved": "_events",
        "ToolCallDenied": "_events",
        "ToolCallFinished": "_events",
        "ToolCallProposed": "_events",
        "ToolCallStarted": "_events",
        "TrustRequired": "_events",
        "TurnEnded": "_events",
        "TurnStarted": "_events",
        "VerificationChanged": "_events",
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
        "NotAvailableError": "_errors",
        "ProcessError": "_errors",
        "ProcessTimeoutError": "_errors",
        "ToolError": "_errors",
        "ZengineError": "_errors",
    },
)
