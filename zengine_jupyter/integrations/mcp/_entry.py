"""One MCP server as the settings describe it, and the ``${VAR}`` expansion of its values.

The settings schema (config part) converts its ``[mcp.servers.NAME]`` tables into
:class:`McpServerEntry`; this module does not import it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from zengine_jupyter.protocol import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from zengine_jupyter.protocol import McpTransportKind

__all__ = ["McpServerEntry", "expand_env", "expand_values", "safe_url"]

_FIELDS = frozenset(
    {"command", "args", "env", "cwd", "url", "headers", "enabled", "disabled_tools"}
)


@dataclass(frozen=True)
class McpServerEntry:
    """``[mcp.servers.NAME]``: a stdio server (``command``) or a streamable-HTTP one (``url``).

    Two entries are equal when every field is: the hub restarts a server only when its
    entry changed. ``env``, ``headers`` and ``url`` keep their ``${VAR}`` references as written:
    the manager expands them from the environment each time the server starts, so no secret
    sits in a file and a variable set later is picked up by the next start.
    """

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, hash=False)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, hash=False)
    enabled: bool = True
    disabled_tools: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        where = f"[mcp.servers.{self.name}]"
        if not self.name:
            raise ConfigError("an MCP server entry has an empty name")
        if (self.command is None) == (self.url is None):
            raise ConfigError(
                f"{where}: set exactly one of command (stdio) or url (streamable HTTP)"
            )
        if self.url is not None and not re.match(r"^https?://", self.url):
            raise ConfigError(f"{where}: url must start with http:// or https://")
        # Accept lists from callers; keep the dataclass hashable-ish and immutable.
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(self, "disabled_tools", frozenset(self.disabled_tools))
        object.__setattr__(self, "env", dict(self.env))
        object.__setattr__(self, "headers", dict(self.headers))

    @classmethod
    def from_mapping(cls, name: str, table: Mapping[str, Any]) -> McpServerEntry:
        """From a ``[mcp.servers.NAME]`` table (a TOML table, or the settings model dumped).

        Unknown keys are a :class:`ConfigError` naming the entry and the key.
        """
        unknown = sorted(set(table) - _FIELDS)
        if unknown:
            raise ConfigError(
                f"[mcp.servers.{name}]: unknown key {unknown[0]!r}",
                hint=f"known keys: {', '.join(sorted(_FIELDS))}",
            )
        return cls(
            name=name,
            command=table.get("command"),
            args=tuple(table.get("args") or ()),
            env=dict(table.get("env") or {}),
            cwd=table.get("cwd"),
            url=table.get("url"),
            headers=dict(table.get("headers") or {}),
            enabled=bool(table.get("enabled", True)),
            disabled_tools=frozenset(table.get("disabled_tools") or ()),
        )

    @property
    def transport(self) -> McpTransportKind:
        return "stdio" if self.command is not None else "http"

    def display_target(self) -> str:
        """The program or the URL without its query and credentials: safe to show."""
        if self.command is not None:
            return self.command
        return safe_url(self.url or "")


def safe_url(url: str) -> str:
    """``url`` without user info, query or fragment (where tokens hide)."""
    m = re.match(r"^(https?://)(?:[^@/]*@)?([^/?#]*)([^?#]*)", url)
    return "".join(m.groups()) if m else "<url>"


def expand_env(value: str, environ: Mapping[str, str], *, where: str) -> str:
    """``value`` with each ``${VAR}`` replaced from ``environ`` (the settings' one rule:
    :func:`zengine_jupyter.config.expand_env_refs`).

    A variable that is not set raises :class:`ConfigError` naming ``where`` (for example
    ``mcp.servers.github.headers.Authorization``) and the variable, never a value.
    """
    from zengine_jupyter.config import expand_env_refs

    return expand_env_refs(value, environ, where=where)


def expand_values(
    values: Mapping[str, str], environ: Mapping[str, str], *, where: str
) -> dict[str, str]:
    """:func:`expand_env` over every value of a table (``env`` or ``headers``)."""
    return {key: expand_env(v, environ, where=f"{where}.{key}") for key, v in values.items()}
