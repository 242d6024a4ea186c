"""One ACP session: an engine chat, its event pump to the client, its modes and options.

The pump forwards every engine event as ``session/update`` notifications in order; a prompt's
answer is sent only after the pump has caught up (``flush``), so a client never sees the end
of a turn before its last chunk. A ``TrustRequired`` event becomes a trust question.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from acp.helpers import update_current_mode
from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    Cost,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
    UnstructuredCommandInput,
    UsageUpdate,
)

from zengine_jupyter.acp._permissions import ask_trust
from zengine_jupyter.config import PERMISSION_MODES, TrustStore
from zengine_jupyter.engine import COMMAND_HELP, close_discarding_unused
from zengine_jupyter.protocol import CostUpdated, Resync, TrustRequired

if TYPE_CHECKING:
    from acp.interfaces import Client

    from zengine_jupyter.acp._updates import Update, UpdateMapper
    from zengine_jupyter.engine import Session, Subscription
    from zengine_jupyter.protocol import EngineEvent

__all__ = ["MODE_TEXT", "AcpChat"]

log = logging.getLogger("zengine.acp")

MODE_TEXT = {
    "default": ("Default", "Asks before edits and commands"),
    "accept_edits": ("Accept edits", "Edits inside the project run without asking"),
    "plan": ("Plan", "Read-only: no edits, no commands that change anything"),
    "bypass": ("Bypass", "Everything runs unless a deny or ask rule matches"),
}


class AcpChat:
    def __init__(self, session: Session, client: Client, mapper: UpdateMapper) -> None:
        self.session = session
        self.client = client
        self.mapper = mapper
        self._events: Subscription = session.subscribe()
        self._idle = asyncio.Event()
        self._idle.set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._pump = asyncio.create_task(self._run(), name=f"zengine-acp-{session.id}")

    @property
    def id(self) -> str:
        return self.session.id

    # ------------------------------------------------------------ updates
    async def send(self, update: Update) -> None:
        await self.client.session_update(session_id=self.id, update=update)

    async def _run(self) -> None:
        while (event := await self._events.get()) is not None:
            self._idle.clear()
            try:
                await self._forward(event)
            except Exception:  # a client gone or a bad update must not stop the chat
                log.exception("could not send %s to the client", event.kind)
            if not self._events.pending():
                self._idle.set()
        self._idle.set()

    async def _forward(self, event: EngineEvent) -> None:
        if isinstance(event, TrustRequired):
            self._spawn(self._ask_trust(event))
            return
        if isinstance(event, Resync):  # fell far behind: what was dropped is in the log
            log.warning("the client fell behind; some updates of chat %s were dropped", self.id)
            return
        for update in self.mapper.updates(event):
            await self.send(update)
        if isinstance(event, CostUpdated):
            await self.send(self.usage())

    async def flush(self) -> None:
        """Until every event published so far has been sent."""
        if self._events.pending():
            self._idle.clear()
        await self._idle.wait()

    def usage(self) -> UsageUpdate:
        """The context used and the chat's cost (a lower bound when a price is unknown)."""
        gauge, meter = self.session.gauge, self.session.meter
        known = meter.total_usd > 0 or not meter.unknown
        return UsageUpdate(
            session_update="usage_update",
            used=gauge.tokens,
            size=max(gauge.tokens, gauge.size),
            cost=Cost(amount=round(meter.total_usd, 6), currency="USD") if known else None,
        )

    async def _ask_trust(self, event: TrustRequired) -> None:
        async def trust() -> None:
            await asyncio.to_thread(TrustStore().trust, event.folder)
            await self.session.reload_settings()

        await ask_trust(self.client, self.id, event, trust)

    def _spawn(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------ modes, options, commands
    def modes(self) -> SessionModeState:
        return SessionModeState(
            current_mode_id=self.session.mode,
            available_modes=[
                SessionMode(id=mode, name=MODE_TEXT[mode][0], description=MODE_TEXT[mode][1])
                for mode in PERMISSION_MODES
            ],
        )

    def config_options(
        self, models: list[str]
    ) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean]:
        current = self.session.provider.model or (models[0] if models else "default")
        choices = [current, *(m for m in models if m != current)]
        return [
            SessionConfigOptionSelect(
                type="select", id="mode", name="Mode", category="mode",
                current_value=self.session.mode,
                options=[SessionConfigSelectOption(value=m, name=MODE_TEXT[m][0],
                                                   description=MODE_TEXT[m][1])
                         for m in PERMISSION_MODES],
            ),
            SessionConfigOptionSelect(
                type="select", id="model", name="Model", category="model",
                current_value=current,
                options=[SessionConfigSelectOption(value=m, name=m) for m in choices],
            ),
        ]  # fmt: skip

    async def set_mode(self, mode: str) -> str:
        """Through ``/mode`` (recorded in the log); the command's answer, or an error text."""
        result = await self.session.commands["mode"](self.session, mode)
        if self.session.mode == mode:
            await self.send(update_current_mode(mode))
        return result.text

    def commands(self) -> AvailableCommandsUpdate:
        """The chat's slash commands (built-in, extensions', the project's own) for "/"."""
        out: list[AvailableCommand] = []
        for name in sorted(self.session.commands):
            text, hint = COMMAND_HELP.get(name, (f"/{name}", None))
            given = AvailableCommandInput(UnstructuredCommandInput(hint=hint)) if hint else None
            out.append(AvailableCommand(name=name, description=text, input=given))
        return AvailableCommandsUpdate(
            session_update="available_commands_update", available_commands=out
        )

    async def aclose(self) -> None:
        """Stop the turn and close the chat; one nobody used (the model never answered, it
        holds nothing but its start) is deleted, as ``zengine run`` does: a client opens a
        session whenever its chat opens (jupyter-ai: each time the panel is moved or reloaded),
        and each would stay in the chat list as an empty "Untitled chat"."""
        self.session.interrupt()
        for task in list(self._tasks):
            task.cancel()
        await close_discarding_unused(self.session, failed=False)
        self._events.close()
        with contextlib.suppress(asyncio.CancelledError):
            await self._pump
