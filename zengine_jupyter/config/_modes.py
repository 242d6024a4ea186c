"""The permission modes: their names alone, importable without the settings models (the
``zengine`` command line offers them as ``--mode`` choices without loading pydantic's schema)."""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

__all__ = ["PERMISSION_MODES", "PermissionMode", "is_permission_mode"]

PermissionMode = Literal["default", "accept_edits", "plan", "bypass"]
PERMISSION_MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)


def is_permission_mode(value: object) -> TypeGuard[PermissionMode]:
    """Whether ``value`` names a permission mode (a saved record, a typed ``--mode``)."""
    return value in PERMISSION_MODES
