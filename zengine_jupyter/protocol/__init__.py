"""Plain data every part shares: errors and the pydantic models sent or persisted.

This is the bottom layer: it imports nothing else from zengine_jupyter. Names load
lazily, so a caller that needs only an error does not import pydantic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.protocol._lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from zengine_jupyter.protocol._errors import (
        ComponentMissingError,
        ConfigError,
        NotAvailableError,
        ProcessError,
        ProcessTimeoutError,
        SessionLockedError,
        SessionNotFoundError,
        StoreError,
        ZengineError,
    )
    from zengine_jupyter.protocol._records import (
        ApprovalRecord,
        CheckpointRecord,
        CheckRecord,
        CompactionRecord,
        LogRecord,
        MessageRecord,
        ModeChangeRecord,
        ModelChangeRecord,
        PlanRecord,
        QuestionRecord,
        RecordedToolCall,
        RewindRecord,
        SessionRecord,
        SubagentEndRecord,
        SubagentStartRecord,
        ThinkingBlock,
        TitleRecord,
        ToolResultRecord,
        TurnEndRecord,
        TurnStartRecord,
        TurnStatus,
        UnknownRecord,
        UsageRecord,
        new_id,
    )
    from zengine_jupyter.protocol._sessions import SessionMeta
    from zengine_jupyter.protocol._status import ComponentStatus, DoctorReport

__all__ = [
    "ApprovalRecord",
    "CheckRecord",
    "CheckpointRecord",
    "CompactionRecord",
    "ComponentMissingError",
    "ComponentStatus",
    "ConfigError",
    "DoctorReport",
    "LogRecord",
    "MessageRecord",
    "ModeChangeRecord",
    "ModelChangeRecord",
    "NotAvailableError",
    "PlanRecord",
    "ProcessError",
    "ProcessTimeoutError",
    "QuestionRecord",
    "RecordedToolCall",
    "RewindRecord",
    "SessionLockedError",
    "SessionMeta",
    "SessionNotFoundError",
    "SessionRecord",
    "StoreError",
    "SubagentEndRecord",
    "SubagentStartRecord",
    "ThinkingBlock",
    "TitleRecord",
    "ToolResultRecord",
    "TurnEndRecord",
    "TurnStartRecord",
    "TurnStatus",
    "UnknownRecord",
    "UsageRecord",
    "ZengineError",
    "new_id",
]

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "ApprovalRecord": "_records",
        "CheckRecord": "_records",
        "CheckpointRecord": "_records",
        "CompactionRecord": "_records",
        "ComponentMissingError": "_errors",
        "ComponentStatus": "_status",
        "ConfigError": "_errors",
        "DoctorReport": "_status",
        "LogRecord": "_records",
        "MessageRecord": "_records",
        "ModeChangeRecord": "_records",
        "ModelChangeRecord": "_records",
        "NotAvailableError": "_errors",
        "PlanRecord": "_records",
        "ProcessError": "_errors",
        "ProcessTimeoutError": "_errors",
        "QuestionRecord": "_records",
        "RecordedToolCall": "_records",
        "RewindRecord": "_records",
        "SessionLockedError": "_errors",
        "SessionMeta": "_sessions",
        "SessionNotFoundError": "_errors",
        "SessionRecord": "_records",
        "StoreError": "_errors",
        "SubagentEndRecord": "_records",
        "SubagentStartRecord": "_records",
        "ThinkingBlock": "_records",
        "TitleRecord": "_records",
        "ToolResultRecord": "_records",
        "TurnEndRecord": "_records",
        "TurnStartRecord": "_records",
        "TurnStatus": "_records",
        "UnknownRecord": "_records",
        "UsageRecord": "_records",
        "ZengineError": "_errors",
        "new_id": "_records",
    },
)
