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
        SandboxError,
        ZengineError,
    )
    from zengine_jupyter.protocol._sandbox import SandboxNotice
    from zengine_jupyter.protocol._status import ComponentStatus, DoctorReport

__all__ = [
    "ComponentMissingError",
    "ComponentStatus",
    "ConfigError",
    "DoctorReport",
    "NotAvailableError",
    "ProcessError",
    "ProcessTimeoutError",
    "SandboxError",
    "SandboxNotice",
    "ZengineError",
]

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "ComponentMissingError": "_errors",
        "ComponentStatus": "_status",
        "ConfigError": "_errors",
        "DoctorReport": "_status",
        "NotAvailableError": "_errors",
        "ProcessError": "_errors",
        "ProcessTimeoutError": "_errors",
        "SandboxError": "_errors",
        "SandboxNotice": "_sandbox",
        "ZengineError": "_errors",
    },
)
