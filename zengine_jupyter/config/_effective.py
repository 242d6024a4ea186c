"""The effective settings of a project: every layer loaded, merged, and restricted by trust."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zengine_jupyter.config._layers import (
    FileLayerName,
    Layer,
    env_layer,
    is_provider_key,
    layer_path,
    read_layer,
    system_settings_path,
)
from zengine_jupyter.config._merge import flatten, merge_tables
from zengine_jupyter.config._paths import data_dir
from zengine_jupyter.config._restrict import ResolvedSettings, restrict_to_user_level
from zengine_jupyter.config._schema import Settings
from zengine_jupyter.config._system import LockedSetting, lock_to_system
from zengine_jupyter.config._trust import TRUST_FILE_NAME, TrustStore
from zengine_jupyter.protocol import TrustStoreError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from zengine_jupyter.protocol import LayerName, SettingsIssue, WithheldSetting

__all__ = [
    "EffectiveSettings",
    "aload_settings",
    "effective_from_layers",
    "load_settings",
    "read_layers",
    "resolve_layers",
    "trust_of",
    "trust_workspace",
]

_USER_LEVEL: frozenset[LayerName] = frozenset({"default", "system", "user", "env"})


@dataclass(frozen=True)
class EffectiveSettings:
    """What a session runs with, and everything the user should be told about it."""

    settings: Settings
    provenance: Mapping[str, LayerName]
    """Flattened key (``provider.base_url``, ``permissions.allow[0]``) -> layer it came from."""
    project: Path | None
    trusted: bool
    """Whether the project's withheld settings apply (always true without a project)."""
    layers: tuple[Layer, ...]
    """The layers that loaded, lowest first (skipped ones are in ``issues``)."""
    issues: tuple[SettingsIssue, ...]
    withheld: tuple[WithheldSetting, ...]
    """Project settings not applied because the folder is not trusted: the banner's list."""
    trust_problem: str | None = None
    """Why trust could not be read (a damaged ``trust.json``); the project then counts as
    untrusted."""
    locked: tuple[LockedSetting, ...] = ()
    """Keys the system layer decides whose value another layer tried to change."""

    @property
    def provider_issues(self) -> tuple[SettingsIssue, ...]:
        """Skipped settings that would have decided where requests go (a ``[provider]`` key, in
        a file or a ``ZENGINE_*`` override), from a layer that applies: the
        model client must not fall back to a default endpoint while any is listed. An
        untrusted project's are left out: its provider settings are withheld anyway."""
        applies = _USER_LEVEL if not self.trusted else _USER_LEVEL | {"project", "local"}
        return tuple(
            issue for issue in self.issues if issue.layer in applies and is_provider_key(issue.key)
        )

    def source_of(self, key: str) -> LayerName:
        """The layer a flattened key came from (``default`` when no file set it)."""
        return self.provenance.get(key, "default")

    def flat(self) -> dict[str, object]:
        """Every effective value by flattened key, in schema order."""
        return flatten(self.settings.model_dump(mode="json"))


def resolve_layers(layers: Sequence[Layer]) -> ResolvedSettings:
    """Merge layers (lowest first) into validated settings with provenance."""
    merged, provenance = merge_tables([(layer.name, layer.data) for layer in layers])
    settings = Settings.model_validate(merged)
    keys = flatten(settings.model_dump())
    return ResolvedSettings(settings, {key: provenance[key] for key in keys if key in provenance})


def read_layers(
    project: Path | None, environ: Mapping[str, str]
) -> tuple[list[Layer], list[SettingsIssue]]:
    """Every layer that loads for ``project``, lowest first, and the ones skipped."""
    layers: list[Layer] = []
    issues: list[SettingsIssue] = []
    system = system_settings_path(environ)
    if system is not None:
        layer, problems = read_layer("system", system)
        issues += problems
        if layer is not None:
            layers.append(layer)
    names: tuple[FileLayerName, ...] = ("user", "project", "local") if project else ("user",)
    for name in names:
        layer, problems = read_layer(name, layer_path(name, project, environ))
        issues += problems
        if layer is not None:
            layers.append(layer)
    layer, problems = env_layer(environ)
    issues += problems
    if layer is not None:
        layers.append(layer)
    return layers, issues


def effective_from_layers(
    layers: Sequence[Layer],
    *,
    project: Path | None,
    trusted: bool,
    issues: Sequence[SettingsIssue] = (),
    trust_problem: str | None = None,
) -> EffectiveSettings:
    """Merge loaded layers and, for an untrusted project, restrict them to the user level."""
    full = resolve_layers(layers)
    withheld: tuple[WithheldSetting, ...] = ()
    resolved = full
    if not trusted:
        user_level = resolve_layers([layer for layer in layers if layer.name in _USER_LEVEL])
        resolved, withheld = restrict_to_user_level(full, user_level)
    system = next((layer for layer in layers if layer.name == "system"), None)
    resolved, locked = lock_to_system(resolved, system)
    return EffectiveSettings(
        settings=resolved.settings,
        provenance=resolved.provenance,
        project=project,
        trusted=trusted,
        layers=tuple(layers),
        issues=tuple(issues),
        withheld=withheld,
        trust_problem=trust_problem,
        locked=locked,
    )


def load_settings(
    project: Path | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    trust: TrustStore | None = None,
) -> EffectiveSettings:
    """Load every layer for ``project`` (``None``: user level only) and apply workspace trust.

    Never raises for a bad file: a layer that does not fit is skipped and listed in ``issues``;
    a damaged ``trust.json`` counts as "not trusted" and is listed too.
    """
    env = os.environ if environ is None else environ
    layers, issues = read_layers(project, env)
    trusted, problem = trust_of(project, env, trust)
    return effective_from_layers(
        layers, project=project, trusted=trusted, issues=issues, trust_problem=problem
    )


def trust_of(
    project: Path | None, environ: Mapping[str, str], trust: TrustStore | None = None
) -> tuple[bool, str | None]:
    """Whether ``project`` is trusted (always, without a project) and why that could not be
    read (a damaged ``trust.json``: then not trusted)."""
    if project is None:
        return True, None
    store = trust if trust is not None else TrustStore(data_dir(dict(environ)) / TRUST_FILE_NAME)
    try:
        return store.is_trusted(project), None
    except TrustStoreError as exc:
        return False, str(exc)


def trust_workspace(
    project: Path,
    *,
    trusted: bool,
    environ: Mapping[str, str] | None = None,
    trust: TrustStore | None = None,
) -> EffectiveSettings | None:
    """The answer to the trust banner (``trustWorkspace { trusted }``).

    Trusting records the folder and returns the reloaded settings; "Not now" (``trusted=False``)
    records nothing and returns ``None``: the banner is only dismissed.
    """
    if not trusted:
        return None
    store = trust if trust is not None else TrustStore()
    store.trust(project)
    return load_settings(project, environ=environ, trust=store)


async def aload_settings(
    project: Path | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    trust: TrustStore | None = None,
) -> EffectiveSettings:
    """:func:`load_settings` off the event loop (it reads a few small files)."""
    return await asyncio.to_thread(load_settings, project, environ=environ, trust=trust)
