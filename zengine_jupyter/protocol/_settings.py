"""What the settings loader reports: a skipped layer, and what an untrusted project was denied.

Both reach the user (``zengine settings``, the kernel's status line and the trust banner), so they
are plain data here; the loader itself lives in ``config/``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from zengine_jupyter.protocol._data_model import DataModel

__all__ = ["LayerName", "SettingsIssue", "WithheldSetting"]

LayerName = Literal["default", "system", "user", "project", "local", "env"]
"""The settings layers, lowest first: built-in defaults, the user's ``settings.toml``, the
project's ``.z-engine/settings.toml``, the personal ``.z-engine/settings.local.toml``, and the
``ZENGINE_*`` environment overrides."""


class SettingsIssue(DataModel):
    """A layer (or one environment override) that was skipped, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    layer: LayerName
    file: str | None = None
    """The file that was skipped; ``None`` for an environment variable."""
    line: int | None = None
    """1-based line of a TOML syntax error, when the parser says."""
    key: str | None = None
    """Dotted key that is wrong (``permissions.mode``) or the environment variable's name."""
    reason: str

    def describe(self, outcome: str | None = None) -> str:
        """One line a person reads: ``FILE:LINE: key: reason (layer skipped)``; ``outcome``
        replaces the words in parentheses (a reload that kept the file's last good content)."""
        where = self.file or "environment"
        if self.line is not None:
            where += f":{self.line}"
        key = f" {self.key}:" if self.key else ""
        skipped = outcome or ("layer skipped" if self.file else "override ignored")
        return f"{where}:{key} {self.reason} ({skipped})"


class WithheldSetting(DataModel):
    """A project setting not applied because the workspace is not trusted (the banner's list)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    """Dotted key, such as ``provider.base_url``, ``hooks.pre_tool_use`` or ``mcp.servers.db``."""
    layer: LayerName
    """The layer that set it: ``project`` or ``local``."""
    detail: str | None = None
    """What it would have added (a rule, a hook command, a check id); never a header value."""
