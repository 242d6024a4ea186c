"""Settings that change under an open chat: which files to watch, reloading while keeping the
last good content of a file that broke, and a short account of what changed.

An open chat notices a change of any layer file (or of ``trust.json``) by
:class:`SettingsFiles`: a ``stat`` of each file, and a hash of the ones whose ``stat`` moved
(a ``touch`` alone is no change). :func:`reload_settings` then loads the layers again; a file
that no longer loads keeps the content it had when it last did (the chat would otherwise lose
every server and rule of that file at the first typo), and its problem is returned for a notice.
:func:`settings_changes` names what differs in words for that notice.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zengine_jupyter.config._effective import effective_from_layers, read_layers, trust_of
from zengine_jupyter.config._layers import DESTINATION_NOT_APPLIED, layer_path
from zengine_jupyter.config._paths import data_dir
from zengine_jupyter.config._trust import TRUST_FILE_NAME
from zengine_jupyter.config._v1 import V1_FILE_NAME

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from zengine_jupyter.config._effective import EffectiveSettings
    from zengine_jupyter.config._layers import Layer
    from zengine_jupyter.config._trust import TrustStore
    from zengine_jupyter.protocol import SettingsIssue

__all__ = ["SettingsFiles", "reload_settings", "settings_changes", "settings_files"]

_ORDER = {"default": 0, "user": 1, "project": 2, "local": 3, "env": 4}
_SPECIAL = ("permissions", "hooks", "lsp", "mcp")
"""Sections :func:`settings_changes` describes in detail (MCP servers: the MCP part does)."""


def settings_files(project: Path | None, environ: Mapping[str, str] | None = None) -> list[Path]:
    """Every file whose change can change ``project``'s effective settings: each layer's
    ``settings.toml`` (and the v1 ``config.toml`` it may fall back to) and ``trust.json``."""
    env = dict(os.environ if environ is None else environ)
    user = layer_path("user", None, env)
    files = [user, user.with_name(V1_FILE_NAME)]
    if project is not None:
        shared = layer_path("project", project, env)
        files += [shared, shared.with_name(V1_FILE_NAME), layer_path("local", project, env)]
    return [*files, data_dir(env) / TRUST_FILE_NAME]


@dataclass(frozen=True)
class _Seen:
    stat: tuple[int, int, int] | None
    """``(mtime_ns, size, inode)``; None when the file is missing."""
    digest: bytes | None


class SettingsFiles:
    """What the settings files looked like when last checked (synchronous: call it in a
    thread; a check costs one ``stat`` per file, plus a read of the files that moved)."""

    def __init__(self, paths: list[Path]) -> None:
        self.paths = tuple(paths)
        self._seen: dict[Path, _Seen] = {path: _look(path, None) for path in self.paths}

    def changed(self) -> list[Path]:
        """The files whose content changed since the last check (created and removed ones
        too); they count as seen from now on."""
        out: list[Path] = []
        for path in self.paths:
            before = self._seen[path]
            now = _look(path, before)
            self._seen[path] = now
            if now.digest != before.digest or (now.stat is None) != (before.stat is None):
                out.append(path)
        return out


def _look(path: Path, before: _Seen | None) -> _Seen:
    try:
        st = path.stat()
    except OSError:
        return _Seen(None, None)
    stat = (st.st_mtime_ns, st.st_size, st.st_ino)
    if before is not None and before.stat == stat:
        return before
    try:
        digest = hashlib.sha256(path.read_bytes()).digest()
    except OSError:
        digest = None
    return _Seen(stat, digest)


def reload_settings(
    previous: EffectiveSettings,
    *,
    environ: Mapping[str, str] | None = None,
    trust: TrustStore | None = None,
) -> tuple[EffectiveSettings, tuple[SettingsIssue, ...]]:
    """Load ``previous.project``'s layers again. A file layer that no longer loads keeps its
    content from ``previous`` (when it loaded then); its problems are returned, not listed in
    the settings' ``issues`` (the destination it kept is the last good one, so the model client
    need not stop). A ``trust.json`` that no longer reads keeps the previous trust."""
    env = os.environ if environ is None else environ
    project = previous.project
    layers, issues = read_layers(project, env)
    loaded = {layer.name for layer in layers}
    good = {layer.name: layer for layer in previous.layers}
    kept_names = {
        issue.layer
        for issue in issues
        if issue.file is not None and issue.layer not in loaded and issue.layer in good
    }
    kept_layers: list[Layer] = [good[name] for name in kept_names]
    layers = sorted([*layers, *kept_layers], key=lambda layer: _ORDER[layer.name])
    kept = tuple(
        issue
        for issue in issues
        if issue.layer in kept_names and issue.reason != DESTINATION_NOT_APPLIED
    )
    issues = [issue for issue in issues if issue.layer not in kept_names]
    trusted, problem = trust_of(project, env, trust)
    if problem is not None and previous.trust_problem is None:
        trusted = previous.trusted
    settings = effective_from_layers(
        layers, project=project, trusted=trusted, issues=issues, trust_problem=problem
    )
    return settings, kept


def settings_changes(old: EffectiveSettings, new: EffectiveSettings) -> list[str]:
    """What differs, in a few words each (``hooks changed``, ``language server 'x' added``,
    ``model settings changed``); MCP servers are left to the MCP part, which knows which
    ones it restarted."""
    out: list[str] = []
    if old.trusted != new.trusted:
        out.append("workspace trusted" if new.trusted else "workspace no longer trusted")
    a, b = old.settings, new.settings
    if a.permissions != b.permissions:
        out.append("permission rules re-applied")
    if a.hooks != b.hooks:
        out.append("hooks changed")
    out += _named("language server", a.lsp.servers, b.lsp.servers)
    if a.mcp.model_dump(exclude={"servers"}) != b.mcp.model_dump(exclude={"servers"}):
        out.append("mcp settings changed")
    for section in type(a).model_fields:
        if section not in _SPECIAL and getattr(a, section) != getattr(b, section):
            out.append(f"{section} settings changed")
    return out


def _named(kind: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    added = [f"{kind} '{name}' added" for name in new if name not in old]
    changed = [f"{kind} '{name}' changed" for name in new if name in old and old[name] != new[name]]
    removed = [f"{kind} '{name}' removed" for name in old if name not in new]
    return added + changed + removed
