"""Settings that change while a chat is open (spec "Settings layers" and "MCP servers" 6).

Each chat has a :class:`LiveSettings`. At the start of every turn, and on the kernel's file
watch, it looks at the settings files (a ``stat`` each, and a hash of those that moved, in a
thread: the loop never waits on the disk). When one changed it loads the layers again (a file
that broke keeps its last good content, with a notice naming the file and key), re-applies the
permission rules and trust, rebuilds the model client only when the model, provider or prices
changed (a ``/model`` choice survives an unrelated edit), and lets each extension reconcile:
MCP servers restart only where their entry changed, a removed one stops, a new one starts;
language servers restart when theirs changed; hooks are read at each use. A notice then says
what changed: ``settings reloaded: mcp server 'x' added, mcp server 'y' restarted``.

A chat in a turn never reloads: a change seen then waits for the next turn start.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING

from zengine_jupyter.config import (
    SettingsFiles,
    reload_settings,
    settings_changes,
    settings_files,
)
from zengine_jupyter.engine._wiring import provider_options
from zengine_jupyter.policy import PermissionPolicy
from zengine_jupyter.protocol import Notice, TrustRequired

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from zengine_jupyter.config import EffectiveSettings
    from zengine_jupyter.engine._session import Session

__all__ = ["LiveSettings"]

KEPT = "kept the last good settings of this file"
"""What a reload says of a settings file that no longer loads."""


class LiveSettings:
    """One chat's view of its settings files, and the reload that follows a change."""

    def __init__(self, root: Path, environ: Mapping[str, str] | None = None) -> None:
        self.environ = environ
        self._paths = settings_files(root, environ)
        self._files: SettingsFiles | None = None
        self._pending = False
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        """Note how the files look now (when the chat opens, after loading them)."""
        self._files = await asyncio.to_thread(SettingsFiles, self._paths)

    async def refresh(self, session: Session, *, in_turn: bool = False) -> bool:
        """Reload when a settings file changed since the last look; whether it did.
        ``in_turn``: the caller holds the chat for a turn start; otherwise a busy chat only
        notes the change for its next turn start."""
        async with self._lock:
            if await self._changed():
                self._pending = True
            if not self._pending or (session.busy and not in_turn):
                return False
            await self._apply(session, from_files=True)
            return True

    async def reload(self, session: Session) -> None:
        """Reload now (the folder was just trusted), whatever the files look like."""
        async with self._lock:
            await self._changed()
            await self._apply(session)

    async def _changed(self) -> bool:
        if self._files is None:
            return False
        return bool(await asyncio.to_thread(self._files.changed))

    async def _apply(self, session: Session, *, from_files: bool = False) -> None:
        """Load and apply; ``from_files``: nobody in this chat asked (``zengine trust`` in a
        terminal, an edit), so the trust banner follows here: cleared or shown again."""
        self._pending = False
        old = session.settings
        new, kept = await asyncio.to_thread(reload_settings, old, environ=self.environ)
        for issue in kept:
            session.journal.publish(
                Notice(session_id=session.id, topic="settings", text=issue.describe(KEPT))
            )
        changes = settings_changes(old, new)
        session.settings = new
        _apply_rules(session, old, new)
        context = new.settings.context  # compaction follows [context] (engine/_context.py)
        session.gauge.threshold = context.compact_threshold
        session.gauge.auto = context.auto_compact
        await _apply_provider(session, old, new)
        for extension in session.extensions:
            try:
                changes += await extension.reload(session) or []
            except Exception as exc:  # one part failing to follow must not fail the turn
                text = f"settings reload: {extension.name} could not follow the change: {exc}"
                session.journal.publish(Notice(session_id=session.id, topic="settings", text=text))
        if changes:
            text = "settings reloaded: " + ", ".join(changes)
            session.journal.publish(Notice(session_id=session.id, topic="settings", text=text))
        if from_files:
            _follow_trust(session, old, new)


def _follow_trust(session: Session, old: EffectiveSettings, new: EffectiveSettings) -> None:
    """A view's trust banner: a ``trust`` notice clears it (the folder was trusted elsewhere);
    new withheld settings of a still untrusted project show it again."""
    if new.trusted and not old.trusted:
        text = f"trusted {session.root}: its settings apply now"
        session.journal.publish(Notice(session_id=session.id, topic="trust", text=text))
        return
    keys = list(dict.fromkeys(w.key for w in new.withheld))
    if keys and keys != list(dict.fromkeys(w.key for w in old.withheld)):
        session.journal.publish(
            TrustRequired(session_id=session.id, folder=str(session.root), withheld=keys)
        )


def _apply_rules(session: Session, old: EffectiveSettings, new: EffectiveSettings) -> None:
    """The new permission rules; the chat's mode stays unless the settings' mode changed."""
    policy = PermissionPolicy.from_settings(new.settings.permissions, session.root)
    if old.settings.permissions.mode == new.settings.permissions.mode:
        policy = replace(policy, mode=session.gate.policy.mode)
    session.gate.policy = policy
    session.ctx.additional_directories = policy.additional_directories


async def _apply_provider(session: Session, old: EffectiveSettings, new: EffectiveSettings) -> None:
    """Rebuild the model client when the provider, the model or the prices changed; a model
    or effort picked in the chat (``/model``, ``--model``) stays when its setting did not."""
    before = provider_options(old.settings, old.provider_issues)
    after = provider_options(new.settings, new.provider_issues)
    a, b = old.settings, new.settings
    costs_same = a.pricing == b.pricing and a.agents.session_cost_cap_usd == (
        b.agents.session_cost_cap_usd
    )
    if before == after and costs_same:
        return
    if after.model == before.model:
        after = replace(after, model=session.provider.model)
    if after.effort == before.effort:
        after = replace(after, effort=session.provider.effort)
    await session.use_provider(after)
