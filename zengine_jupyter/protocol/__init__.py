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
        VerificationError,
        ZengineError,
    )
    from zengine_jupyter.protocol._status import ComponentStatus, DoctorReport
    from zengine_jupyter.protocol._verification import (
        EVIDENCE_KINDS,
        Badge,
        CheckKind,
        CheckRecord,
        CheckSource,
        CheckSpec,
        TestCounts,
        VerificationMode,
        VerificationOutcome,
    )

__all__ = [
    "EVIDENCE_KINDS",
    "REWIND_LIMITS",
    "Badge",
    "CheckKind",
    "CheckRecord",
    "CheckSource",
    "CheckSpec",
    "CheckpointError",
    "CheckpointInfo",
    "CheckpointsOff",
    "CodeRestore",
    "ComponentMissingError",
    "ComponentStatus",
    "ConfigError",
    "DoctorReport",
    "NotAvailableError",
    "NotStored",
    "ProcessError",
    "ProcessTimeoutError",
    "TestCounts",
    "VerificationError",
    "VerificationMode",
    "VerificationOutcome",
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
        "NotAvailableError": "_errors",
        "ProcessError": "_errors",
        "ProcessTimeoutError": "_errors",
        "ZengineError": "_errors",
        "VerificationError": "_errors",
        "EVIDENCE_KINDS": "_verification",
        "Badge": "_verification",
        "CheckKind": "_verification",
        "CheckRecord": "_verification",
        "CheckSource": "_verification",
        "CheckSpec": "_verification",
        "TestCounts": "_verification",
        "VerificationMode": "_verification",
        "VerificationOutcome": "_verification",
    },
)
