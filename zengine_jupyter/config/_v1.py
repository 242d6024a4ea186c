"""Importing a v1 ``config.toml`` when a level has no v2 ``settings.toml``.

The v1 file (zengine 1.x) was flat. Every key it accepted, and where it lands in v2::

    model = "claude-sonnet-4-5"        -> model.main
    fast_model = "claude-haiku-4-5"    -> model.fast
    fallback_models = ["..."]          -> model.fallbacks
    provider = "anthropic"             -> provider.kind   (auto | anthropic | openai)
    base_url = "https://..."           -> provider.base_url
    approval_mode = "auto-edit"        -> permissions.mode:
                                          suggest -> default, auto-edit -> accept_edits,
                                          plan -> plan, full-auto -> bypass
    allowed_tools = ["Bash(ls)"]       -> permissions.allow
    denied_tools = ["Bash(rm:*)"]      -> permissions.deny
    shell = "/bin/zsh"                 -> shell.program
    [mcp_servers.NAME]                 -> [mcp.servers.NAME]
    command, args, env, url               (same keys)

Any other key makes the file invalid, like an unknown key in a v2 file. The v1 file is only read,
never changed; the first rule written at that level creates the v2 file from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["V1_FILE_NAME", "V1Error", "convert_v1"]

V1_FILE_NAME = "config.toml"

_SCALARS: dict[str, tuple[str, ...]] = {
    "model": ("model", "main"),
    "fast_model": ("model", "fast"),
    "fallback_models": ("model", "fallbacks"),
    "provider": ("provider", "kind"),
    "base_url": ("provider", "base_url"),
    "allowed_tools": ("permissions", "allow"),
    "denied_tools": ("permissions", "deny"),
    "shell": ("shell", "program"),
}
_MODES = {"suggest": "default", "auto-edit": "accept_edits", "plan": "plan", "full-auto": "bypass"}
_MCP_KEYS = frozenset({"command", "args", "env", "url"})


class V1Error(ValueError):
    """A v1 file that cannot be imported; ``key`` names the offending key."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(reason)
        self.key = key
        self.reason = reason


def convert_v1(data: Mapping[str, Any]) -> dict[str, Any]:
    """The v2 table a v1 ``config.toml`` means; raises :class:`V1Error` on an unknown key."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in _SCALARS:
            section, name = _SCALARS[key]
            out.setdefault(section, {})[name] = value
        elif key == "approval_mode":
            if value not in _MODES:
                raise V1Error(key, f"must be one of {', '.join(_MODES)}")
            out.setdefault("permissions", {})["mode"] = _MODES[value]
        elif key == "mcp_servers":
            out["mcp"] = {"servers": _convert_servers(value)}
        else:
            raise V1Error(key, "unknown v1 key (see docs/settings.md, 'v1 config.toml')")
    return out


def _convert_servers(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise V1Error("mcp_servers", "must be a table of [mcp_servers.NAME] tables")
    servers: dict[str, Any] = {}
    for name, body in value.items():
        if not isinstance(body, Mapping):
            raise V1Error(f"mcp_servers.{name}", "must be a table")
        unknown = set(body) - _MCP_KEYS
        if unknown:
            raise V1Error(f"mcp_servers.{name}.{sorted(unknown)[0]}", "unknown v1 key")
        servers[name] = dict(body)
    return servers
