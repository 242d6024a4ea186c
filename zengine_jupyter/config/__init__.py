"""Settings, trust and the folders zengine uses.

The folder helpers load eagerly (``%load_ext`` needs them and they are cheap); the settings
schema, loader and trust store load on first use, so loading the extension imports no pydantic
models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.config._paths import (
    HOME_ENV,
    data_dir,
    find_project_root,
    notebook_path,
    user_config_dir,
)
from zengine_jupyter.config._private import (
    PRIVATE_DIR_MODE,
    PRIVATE_FILE_MODE,
    open_private,
    private_dir,
    private_temp_dir,
    tighten,
    write_private,
)
from zengine_jupyter.protocol import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from zengine_jupyter.config._effective import (
        EffectiveSettings,
        aload_settings,
        effective_from_layers,
        load_settings,
        read_layers,
        resolve_layers,
        trust_workspace,
    )
    from zengine_jupyter.config._extensions import (
        MODE_LOOSENESS,
        CommandGrants,
        child_mode,
        may_run_automatic_checks,
        trusted_grants,
    )
    from zengine_jupyter.config._first_run import DEFAULT_KEY_VARS, provider_configured
    from zengine_jupyter.config._glob import compile_glob
    from zengine_jupyter.config._layers import (
        ENV_OVERRIDES,
        SYSTEM_SETTINGS,
        SYSTEM_SETTINGS_ENV,
        Layer,
        env_layer,
        layer_path,
        system_settings_path,
    )
    from zengine_jupyter.config._modes import PERMISSION_MODES, PermissionMode, is_permission_mode
    from zengine_jupyter.config._reference import render_reference
    from zengine_jupyter.config._reload import (
        SettingsFiles,
        reload_settings,
        settings_changes,
        settings_files,
    )
    from zengine_jupyter.config._restrict import (
        APPLIED,
        CAPPED,
        WITHHELD,
        ResolvedSettings,
        restrict_to_user_level,
    )
    from zengine_jupyter.config._rules import PermissionRule
    from zengine_jupyter.config._schema import (
        AgentsSettings,
        AppearanceSettings,
        CheckpointsSettings,
        ContextSettings,
        DecisionsSettings,
        KernelSettings,
        ModelSettings,
        PermissionsSettings,
        PriceSettings,
        ProviderSettings,
        Settings,
        WebSettings,
    )
    from zengine_jupyter.config._schema_tools import (
        CheckSettings,
        HookSettings,
        HooksSettings,
        LspServerSettings,
        LspSettings,
        McpServerSettings,
        McpSettings,
        SandboxSettings,
        ShellSettings,
        VerificationSettings,
        expand_env_refs,
    )
    from zengine_jupyter.config._system import LockedSetting
    from zengine_jupyter.config._trust import TrustStore
    from zengine_jupyter.config._write import add_permission_rule, add_rule_to_layer
    from zengine_jupyter.config._write_provider import write_provider_choice

_LAZY = {
    "APPLIED": "_restrict",
    "AgentsSettings": "_schema",
    "AppearanceSettings": "_schema",
    "CAPPED": "_restrict",
    "CheckSettings": "_schema_tools",
    "CheckpointsSettings": "_schema",
    "CommandGrants": "_extensions",
    "ContextSettings": "_schema",
    "DecisionsSettings": "_schema",
    "KernelSettings": "_schema",
    "DEFAULT_KEY_VARS": "_first_run",
    "ENV_OVERRIDES": "_layers",
    "EffectiveSettings": "_effective",
    "HookSettings": "_schema_tools",
    "HooksSettings": "_schema_tools",
    "Layer": "_layers",
    "LockedSetting": "_system",
    "SYSTEM_SETTINGS": "_layers",
    "SYSTEM_SETTINGS_ENV": "_layers",
    "system_settings_path": "_layers",
    "LspServerSettings": "_schema_tools",
    "LspSettings": "_schema_tools",
    "MODE_LOOSENESS": "_extensions",
    "McpServerSettings": "_schema_tools",
    "McpSettings": "_schema_tools",
    "ModelSettings": "_schema",
    "PERMISSION_MODES": "_modes",
    "PermissionMode": "_modes",
    "is_permission_mode": "_modes",
    "PermissionRule": "_rules",
    "PermissionsSettings": "_schema",
    "PriceSettings": "_schema",
    "ProviderSettings": "_schema",
    "ResolvedSettings": "_restrict",
    "SettingsFiles": "_reload",
    "SandboxSettings": "_schema_tools",
    "Settings": "_schema",
    "ShellSettings": "_schema_tools",
    "TrustStore": "_trust",
    "VerificationSettings": "_schema_tools",
    "WITHHELD": "_restrict",
    "WebSettings": "_schema",
    "add_permission_rule": "_write",
    "add_rule_to_layer": "_write",
    "aload_settings": "_effective",
    "child_mode": "_extensions",
    "compile_glob": "_glob",
    "effective_from_layers": "_effective",
    "env_layer": "_layers",
    "expand_env_refs": "_schema_tools",
    "layer_path": "_layers",
    "load_settings": "_effective",
    "read_layers": "_effective",
    "may_run_automatic_checks": "_extensions",
    "reload_settings": "_reload",
    "render_reference": "_reference",
    "resolve_layers": "_effective",
    "restrict_to_user_level": "_restrict",
    "settings_changes": "_reload",
    "settings_files": "_reload",
    "trust_workspace": "_effective",
    "trusted_grants": "_extensions",
    "provider_configured": "_first_run",
    "write_provider_choice": "_write_provider",
}

__all__ = [
    "APPLIED",
    "CAPPED",
    "DEFAULT_KEY_VARS",
    "ENV_OVERRIDES",
    "HOME_ENV",
    "MODE_LOOSENESS",
    "PERMISSION_MODES",
    "PRIVATE_DIR_MODE",
    "PRIVATE_FILE_MODE",
    "SYSTEM_SETTINGS",
    "SYSTEM_SETTINGS_ENV",
    "WITHHELD",
    "AgentsSettings",
    "AppearanceSettings",
    "CheckSettings",
    "CheckpointsSettings",
    "CommandGrants",
    "ContextSettings",
    "DecisionsSettings",
    "EffectiveSettings",
    "HookSettings",
    "HooksSettings",
    "KernelSettings",
    "Layer",
    "LockedSetting",
    "LspServerSettings",
    "LspSettings",
    "McpServerSettings",
    "McpSettings",
    "ModelSettings",
    "PermissionMode",
    "PermissionRule",
    "PermissionsSettings",
    "PriceSettings",
    "ProviderSettings",
    "ResolvedSettings",
    "SandboxSettings",
    "Settings",
    "SettingsFiles",
    "ShellSettings",
    "TrustStore",
    "VerificationSettings",
    "WebSettings",
    "add_permission_rule",
    "add_rule_to_layer",
    "aload_settings",
    "child_mode",
    "compile_glob",
    "data_dir",
    "effective_from_layers",
    "env_layer",
    "expand_env_refs",
    "find_project_root",
    "is_permission_mode",
    "layer_path",
    "load_settings",
    "may_run_automatic_checks",
    "notebook_path",
    "open_private",
    "private_dir",
    "private_temp_dir",
    "provider_configured",
    "read_layers",
    "reload_settings",
    "render_reference",
    "resolve_layers",
    "restrict_to_user_level",
    "settings_changes",
    "settings_files",
    "system_settings_path",
    "tighten",
    "trust_workspace",
    "trusted_grants",
    "user_config_dir",
    "write_private",
    "write_provider_choice",
]

_lazy_getattr, _lazy_dir = _lazy_exports(__name__, _LAZY)


def __getattr__(name: str) -> object:
    return _lazy_getattr(name)


def __dir__() -> list[str]:
    return list(__all__)
