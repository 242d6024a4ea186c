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
        SettingsFileError,
        TrustStoreError,
        ZengineError,
    )
    from zengine_jupyter.protocol._hooks import HOOK_EVENTS, HookEventName, HookPayload
    from zengine_jupyter.protocol._settings import LayerName, SettingsIssue, WithheldSetting
    from zengine_jupyter.protocol._status import ComponentStatus, DoctorReport
    from zengine_jupyter.protocol._trust import TrustEntry, TrustFile

__all__ = [
    "HOOK_EVENTS",
    "ComponentMissingError",
    "ComponentStatus",
    "ConfigError",
    "DoctorReport",
    "HookEventName",
    "HookPayload",
    "LayerName",
    "NotAvailableError",
    "ProcessError",
    "ProcessTimeoutError",
    "SettingsFileError",
    "SettingsIssue",
    "TrustEntry",
    "TrustFile",
    "TrustStoreError",
    "WithheldSetting",
    "ZengineError",
]

__getattr__, __dir__ = _lazy_exports(
    __name__,
    {
        "HOOK_EVENTS": "_hooks",
        "ComponentMissingError": "_errors",
        "ComponentStatus": "_status",
        "ConfigError": "_errors",
        "DoctorReport": "_status",
        "HookEventName": "_hooks",
        "HookPayload": "_hooks",
        "LayerName": "_settings",
        "NotAvailableError": "_errors",
        "ProcessError": "_errors",
        "ProcessTimeoutError": "_errors",
        "SettingsFileError": "_errors",
        "SettingsIssue": "_settings",
        "TrustEntry": "_trust",
        "TrustFile": "_trust",
        "TrustStoreError": "_errors",
        "WithheldSetting": "_settings",
        "ZengineError": "_errors",
    },
)
