"""One per kernel: the chats ``%%agent`` and the panel opened, the turns in flight, their
widgets and the panel's comms (views).

A turn is a task on the kernel's running loop, owned here (so it is never garbage collected
and ``%unload_ext`` can cancel it); the magic returns as soon as the task is scheduled, and a
panel's ``submit`` (:meth:`KernelController.begin`) as soon as the turn has started. Both
drive the same chats: a turn runs with a :class:`TurnWidget` (a cell) or without one (the
panel follows the chat's events on its comm), and either view answers approvals through the
chat's :class:`KernelApprovals`. A
blocking turn (``--wait``, or a cell run without a frontend, as nbclient and papermill do)
runs the same task to its end with nest-asyncio2 (ipykernel 7's own fork, which does not lose
the kernel's messages) and answers approvals by policy. ``%unload_ext`` cancels the turns and
closes every chat the same way, waiting at most :data:`CLOSE_WAIT_S`. Nothing the engine
raises reaches the cell: errors are shown in the turn's widget.

Nothing heavy is imported here at module level: the engine, pydantic models and the widget
stack load on the first ``%%agent``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from zengine_jupyter.kernel._approvals import KernelApprovals
from zengine_jupyter.kernel._project import project_of, same_root
from zengine_jupyter.kernel._status import current_status

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine
    from pathlib import Path

    from IPython.core.interactiveshell import InteractiveShell

    from zengine_jupyter.config import PermissionMode
    from zengine_jupyter.engine import (
        CellExecutor,
        CommandResult,
        Session,
        SessionExtension,
        TurnOutcome,
    )
    from zengine_jupyter.kernel._comm import PanelComm
    from zengine_jupyter.kernel._live_docs import LiveRegistry
    from zengine_jupyter.kernel._widget import TurnWidget
    from zengine_jupyter.protocol import TurnApprovalAnswer, TurnInterrupt, TurnResult

__all__ = ["CLOSE_WAIT_S", "CLOSING", "SETTINGS_POLL_S", "KernelController", "TurnRequest"]

CLOSING: set[asyncio.Task[None]] = set()
"""Chats still closing after ``%unload_ext`` (held so the tasks finish)."""
CLOSE_WAIT_S = 15.0
"""How long ``%unload_ext`` waits for turns and chats to close before it returns."""
SETTINGS_POLL_S = 2.0
"""How often the kernel looks at the open chats' settings files (a ``stat`` each, in a
thread): a change reloads an idle chat at once (a chat in a turn at its next turn start)."""
BLOCKED_WAIT_S = 600.0
"""How long a ``--wait`` cell waits for the chat's turn already running before it says so."""


@dataclass(frozen=True)
class TurnRequest:
    """What one ``%%agent`` cell asks for."""

    text: str
    session_id: str | None = None
    new: bool = False
    project: str | None = None
    """``--project DIR``: the chat works on DIR (default: the notebook's project)."""
    mode: PermissionMode | None = None
    model: str | None = None
    wait: bool = False
    yes: bool = False
    sent_note: str | None = None
    """``--vars``: what was replaced in ``text`` (the widget then shows what was sent)."""


@dataclass
class _Chat:
    session: Session
    approvals: KernelApprovals
    reload_after_turn: bool = False
    """The folder was trusted during a turn: load the settings again when it ends."""

    @property
    def running_turn_id(self) -> str | None:
        """The turn in flight (its ``turn_start`` record is the log's last open turn)."""
        if not self.session.busy:
            return None
        last = self.session.writer.state().last_turn
        return last.turn_id if last is not None and last.status == "open" else None


@dataclass
class KernelController:
    """The engine side of one kernel's ``%%agent`` cells."""

    shell: InteractiveShell
    chats: dict[str, _Chat] = field(default_factory=dict)
    current: str | None = None
    """The chat ``%%agent`` continues without ``--session`` / ``--new``."""
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    widgets: list[TurnWidget] = field(default_factory=list)
    extensions: list[Callable[[], SessionExtension]] = field(default_factory=list)
    """Extra session extensions for chats opened from now on (the kernel tool is always in)."""
    views: set[PanelComm] = field(default_factory=set)
    """The panel comms open on this kernel (``kernel/_comm.py``)."""
    live: LiveRegistry = field(default_factory=lambda: _live_registry())
    """The notebooks the pages of those comms have open (``kernel/_live_docs.py``)."""
    loop: asyncio.AbstractEventLoop | None = None
    """The kernel's own loop (captured at ``%load_ext``): comm callbacks on a subshell thread
    hand their work to it."""
    closed: bool = False
    """``%unload_ext`` closed it."""
    blocking: int = 0
    """``--wait`` (or nbclient) cells holding the kernel now: the notebook runs no other cell
    meanwhile, so RunCell stays headless (``_notebook_run.py``)."""
    trust_listeners: list[Callable[[Path], Coroutine[Any, Any, None]]] = field(default_factory=list)
    """Awaited after :meth:`trust` (the status widgets refresh)."""
    _opening: asyncio.Lock | None = None
    _watching: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        if self.loop is None:
            with contextlib.suppress(RuntimeError):
                self.loop = asyncio.get_running_loop()

    # ------------------------------------------------------------------ from the magics
    def interactive(self) -> bool:
        """False when no frontend can click: the request came with ``allow_stdin`` off, as
        nbclient and papermill send it."""
        kernel = getattr(self.shell, "kernel", None)
        return kernel is None or bool(getattr(kernel, "_allow_stdin", True))

    def start(self, request: TurnRequest) -> TurnWidget:
        """Show a widget and schedule the turn on the kernel's loop; block only if asked."""
        from IPython.display import display

        from zengine_jupyter.kernel._commwidget import WIDGET_VIEW_MIME
        from zengine_jupyter.kernel._widget import TurnWidget

        loop = asyncio.get_running_loop()
        blocking = request.wait or not self.interactive()
        widget = TurnWidget(loop, prompt=request.text, interactive=not blocking,
                            sent_note=request.sent_note or "")  # fmt: skip
        self.widgets.append(widget)
        handle = display(widget.mimebundle(), raw=True, display_id=True)
        policy = True if request.yes else (False if blocking else None)
        task = self.spawn(self._turn(request, widget, policy, blocking), "zengine-agent-turn")
        if blocking:
            self.blocking += 1  # the notebook cannot run a cell meanwhile (RunCell: headless)
            try:
                _run_to_end(loop, task)
            finally:
                self.blocking -= 1
            # one output: the widget, its plain-text form now the turn's summary (what a
            # frontend without widgets shows: nbclient, papermill, nbconvert)
            view = {"version_major": 2, "version_minor": 1, "model_id": widget.model_id}
            bundle = {WIDGET_VIEW_MIME: view, "text/plain": _summary(widget)}
            if handle is not None:
                handle.update(bundle, raw=True)
        return widget

    def spawn(self, work: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """Run ``work`` as a task on the kernel's loop, owned here until it ends."""
        loop = self.loop or asyncio.get_running_loop()
        task = loop.create_task(work, name=name)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def close(self) -> None:
        """``%unload_ext``: close the panel comms, cancel turns, close widgets, close every
        chat (in the background, waited for)."""
        self.closed = True
        closed_views = [task for view in list(self.views) for task in view.close()]
        self.views.clear()
        tasks = list(self.tasks) + closed_views
        for task in tasks:
            task.cancel()
        for chat in self.chats.values():
            chat.approvals.cancel_all()
        for widget in self.widgets:
            widget.handler = None
            widget.close()
        self.widgets.clear()
        sessions = [chat.session for chat in self.chats.values()]
        self.chats.clear()
        self.current = None
        if tasks or sessions:  # there was a turn, so the kernel's loop is running
            loop = asyncio.get_running_loop()
            closing = loop.create_task(_close_all(tasks, sessions), name="zengine-closing")
            CLOSING.add(closing)
            closing.add_done_callback(CLOSING.discard)
            # wait (bounded) so that nothing of ours is left when the cell ends
            _run_to_end(loop, loop.create_task(asyncio.wait({closing}, timeout=CLOSE_WAIT_S)))

    # ------------------------------------------------------------------ on the loop
    async def chat_session(self, session_id: str | None = None) -> Session:
        """The chat a widget acts on (rewind): ``session_id``'s, opened if need be, else the
        current one (a new one when there is none)."""
        return (await self._chat(TurnRequest(text="", session_id=session_id))).session

    async def _turn(
        self, request: TurnRequest, widget: TurnWidget, policy: bool | None, blocking: bool = False
    ) -> None:
        chat: _Chat | None = None
        try:
            chat = await self._chat(request)
            if blocking:  # a --wait cell (Run All) waits for the chat's background turn first
                await _until_idle(chat.session)
            widget.session_id = chat.session.id
            widget.handler = functools.partial(self._on_request, chat)
            chat.approvals.policy = policy
            widget.status = "running"
            try:
                outcome = await _submit(chat.session, request.text, widget)
            finally:
                self._turn_over(chat)
            widget.command = not outcome.turn_id
            widget.emit([_result(outcome, chat.session)])
            widget.status = outcome.status
            await self._discard_if_unused(chat, outcome.status == "failed")
        except asyncio.CancelledError:
            widget.status = "interrupted"
            raise
        except Exception as exc:
            from zengine_jupyter.protocol import EngineError, TurnResult

            hint = getattr(exc, "hint", None)
            message = str(exc) or type(exc).__name__
            cost = chat.session.meter.render() if chat is not None else ""
            session_id = chat.session.id if chat is not None else ""
            widget.emit([EngineError(session_id=session_id, message=message, hint=hint),
                         TurnResult(status="failed", reason=message, cost=cost)])  # fmt: skip
            widget.status = "failed"
        finally:
            if chat is not None:
                chat.approvals.policy = None

    async def _discard_if_unused(self, chat: _Chat, failed: bool) -> None:
        """A chat this cell created whose request failed before the model answered (no key,
        an unknown command) is closed and deleted, unless a panel shows it; the next cell
        starts a new one. A command that worked keeps its chat (/mcp started its servers)."""
        from zengine_jupyter.engine import close_discarding_unused, is_unused

        if not failed or any(view.chat is chat for view in self.views):
            return
        if not is_unused(chat.session, failed):
            return
        self.chats.pop(chat.session.id, None)
        if self.current == chat.session.id:
            self.current = None
        await close_discarding_unused(chat.session, failed=failed)

    # ------------------------------------------------------------------ from the panel
    async def open_chat(self, session_id: str | None = None) -> _Chat:
        """The chat ``session_id`` (resumed from the store if it is not open), else the
        kernel's current chat, else a new one; it becomes the current chat."""
        return await self._chat(TurnRequest(text="", session_id=session_id))

    def current_chat(self) -> _Chat | None:
        return self.chats.get(self.current) if self.current else None

    async def begin(self, chat: _Chat, text: str) -> tuple[str | None, TurnOutcome | None]:
        """Start a turn in ``chat`` with no widget, as the panel does (``_panel_turn.py``)."""
        from zengine_jupyter.kernel._panel_turn import begin

        return await begin(self, chat, text)

    def _turn_over(self, chat: _Chat) -> None:
        """A turn ended: settings deferred while it ran are loaded now."""
        if chat.reload_after_turn and chat.session.id in self.chats:
            chat.reload_after_turn = False
            self.spawn(_reload(chat.session), "zengine-reload-settings")

    async def reload_settings(self, root: Path) -> int:
        """Load the settings again in every open chat on ``root`` (after trusting it); a chat
        in a turn does it when the turn ends. Returns how many chats there are."""
        count = 0
        for chat in list(self.chats.values()):
            if chat.session.root != root:
                continue
            count += 1
            if chat.session.busy:
                chat.reload_after_turn = True
            else:
                await chat.session.reload_settings()
        return count

    async def trust(self, root: Path) -> None:
        """Trust ``root`` (from the panel or a status widget): record it, reload the settings of
        its open chats, tell every view of them, then the :attr:`trust_listeners`."""
        from zengine_jupyter.config import TrustStore
        from zengine_jupyter.protocol import Notice

        await asyncio.to_thread(TrustStore().trust, root)
        await self.reload_settings(root)
        for chat in list(self.chats.values()):  # every view of them hides its banner
            if chat.session.root == root:
                when = " from the end of this turn" if chat.session.busy else " now"
                text = f"trusted {root}: its settings apply{when}"
                chat.session.bus.publish(Notice(session_id=chat.session.id, topic="trust",
                                                text=text))  # fmt: skip
        for listener in list(self.trust_listeners):
            with contextlib.suppress(Exception):  # a view failing to refresh is not a failure
                await listener(root)

    # ------------------------------------------------------------------ chats
    async def _chat(self, request: TurnRequest) -> _Chat:
        """The chat this cell talks to: resumed, new, or the kernel's current one."""
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:
            wanted = request.session_id or (None if request.new else self.current)
            chat = self.chats.get(wanted) if wanted else None
            if chat and not request.session_id and not same_root(request.project, chat.session):
                chat, wanted = None, None  # --project names another folder: a new chat
            if chat is None:
                chat = await self._open(request, wanted)
                self.chats[chat.session.id] = chat
            else:
                for name, value in (("mode", request.mode), ("model", request.model)):
                    if value:
                        await chat.session.commands[name](chat.session, value)
            self.current = chat.session.id
            for view in list(self.views):
                view.chat_opened(chat)
            self._watch_settings()
            return chat

    def _watch_settings(self) -> None:
        """The settings files' watch: one poll task while chats are open (no watcher library)."""
        if not self.closed and (self._watching is None or self._watching.done()):
            self._watching = self.spawn(self._poll_settings(), "zengine-settings-watch")

    async def _poll_settings(self) -> None:
        while not self.closed and self.chats:
            await asyncio.sleep(SETTINGS_POLL_S)
            for chat in list(self.chats.values()):
                with contextlib.suppress(Exception):  # a failed reload is the chat's notice
                    await chat.session.refresh_settings()

    async def _open(self, request: TurnRequest, session_id: str | None) -> _Chat:
        from zengine_jupyter.engine import Session, SessionOptions
        from zengine_jupyter.kernel._live_docs import ChatLive
        from zengine_jupyter.kernel._namespace import NamespaceExtension
        from zengine_jupyter.kernel._run_cell import RunCellExtension

        status = current_status()
        approvals = KernelApprovals()
        namespace = functools.partial(NamespaceExtension, lambda: self.shell.user_ns)
        opened: list[_Chat] = []  # the chat, once open: its runs are reviewed by turn
        run_cell = functools.partial(RunCellExtension, lambda: self.cell_executor(
            opened[0].running_turn_id if opened else None))  # fmt: skip
        session = await Session.open(
            SessionOptions(
                project=project_of(request.project) or status.project_root,
                session_id=session_id,
                approvals=approvals,
                mode=request.mode,
                model=request.model,
                notebook=str(status.notebook) if status.notebook else None,
                extensions=(namespace, run_cell, *self.extensions),
            )
        )
        session.commands["trust"] = self._trust_command  # one trust path for every view
        chat = _Chat(session, approvals)
        opened.append(chat)
        # notebooks open in a page are edited there, not on disk
        session.ctx.live = ChatLive(
            self.live, lambda: chat.running_turn_id, folder=session.writer.folder / "live"
        )
        return chat

    def cell_executor(self, turn_id: str | None = None) -> CellExecutor:
        """How a RunCell call runs now: as a visible cell of the notebook when a page has this
        kernel's notebook open and no ``--wait`` cell holds the kernel (``notebook_executor``;
        the page lists the cell in turn ``turn_id``'s review), else headless, in this kernel's
        namespace."""
        from zengine_jupyter.kernel._headless import HeadlessExecutor
        from zengine_jupyter.kernel._notebook_run import notebook_executor

        return notebook_executor(self, turn_id) or HeadlessExecutor(lambda: self.shell)

    async def _trust_command(self, session: Session, args: str) -> CommandResult:
        """``/trust`` in this kernel: :meth:`trust`, as the status widget and panel buttons."""
        from zengine_jupyter.engine import CommandResult

        if session.settings.trusted and not session.settings.withheld:
            return CommandResult(f"{session.root} is trusted")
        await self.trust(session.root)
        return CommandResult(f"trusted {session.root}; its settings now apply")

    def _on_request(self, chat: _Chat, request: TurnInterrupt | TurnApprovalAnswer) -> str | None:
        """A turn view's parsed request (on the loop's thread): None when done, else the error
        to show (``replay`` is answered by the widget itself)."""
        if request.kind == "interrupt":
            chat.session.interrupt()
            return None
        if chat.approvals.answer(request.request_id, request.decision):
            return None
        return "this question was already answered or its turn has ended"


async def _until_idle(session: Session, timeout_s: float = BLOCKED_WAIT_S) -> None:
    """Wait (bounded) while another turn or command of the chat runs: a ``--wait`` cell after a
    background one (``Run All``) runs after it instead of failing; past the bound, the submit
    says which turn runs."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout_s):
            while session.busy:  # noqa: ASYNC110 - the turn is the session's, not ours to await
                await asyncio.sleep(0.05)


async def _submit(session: Session, text: str, widget: TurnWidget) -> TurnOutcome:
    """Run the turn with the widget following the chat's events until it ends."""
    sub = session.subscribe()
    pump = asyncio.create_task(widget.pump(sub), name="zengine-agent-pump")
    try:
        return await session.submit(text)
    finally:
        sub.close()
        with contextlib.suppress(Exception):
            await asyncio.shield(pump)


async def _reload(session: Session) -> None:
    with contextlib.suppress(Exception):
        await session.reload_settings()


def _live_registry() -> LiveRegistry:
    from zengine_jupyter.kernel._live_docs import LiveRegistry

    return LiveRegistry()


def _result(outcome: TurnOutcome, session: Session) -> TurnResult:
    from zengine_jupyter.protocol import TurnResult

    changed = [session.ctx.display(path) for path in dict.fromkeys(outcome.changed)]
    return TurnResult(status=outcome.status, reason=outcome.reason, text=outcome.text,
                      changed=changed, cost=session.meter.render())  # fmt: skip


def _summary(widget: TurnWidget) -> str:
    """The turn in plain text, for outputs nobody watched live (papermill, nbclient); a slash
    command's is its answer."""
    from zengine_jupyter.engine import approval_outcome

    if widget.command:
        results = [e for e in widget.kept if e.kind == "turn_result"]
        if results and results[-1].text:
            badges = [f"verification: {e.badge} ({e.reason})" for e in widget.kept
                      if e.kind == "verification_changed"]  # fmt: skip
            return "\n".join([results[-1].text, *badges[-1:]])
    lines = []
    for event in widget.kept:
        if event.kind == "error":
            lines.append(f"error: {event.message}")
            if event.hint:
                lines.append(f"  {event.hint}")
        elif event.kind == "tool_call_denied":
            lines.append(approval_outcome(event))
        elif event.kind == "notice" and event.topic == "replay":
            lines.append(event.text)  # a recording must say so wherever it is shown
        elif event.kind == "verification_changed":
            lines.append(f"verification: {event.badge} ({event.reason})")
        elif event.kind == "turn_result":
            changed = ", ".join(event.changed) or "no files"
            if event.text:
                lines.append(event.text)
            cost = f" · {event.cost}" if event.cost else ""
            lines.append(f"(turn {event.status} · changed {changed}{cost})")
    return "\n".join(lines) or f"zengine: turn {widget.status}"


def _run_to_end(loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any]) -> None:
    """Block the cell until ``task`` ends, the loop running underneath (nest-asyncio2)."""
    import nest_asyncio2  # type: ignore[import-untyped]

    nest_asyncio2.apply(loop)
    with contextlib.suppress(asyncio.CancelledError, Exception):
        loop.run_until_complete(task)


async def _close_all(tasks: list[asyncio.Task[Any]], sessions: list[Session]) -> None:
    await asyncio.gather(*tasks, return_exceptions=True)
    for session in sessions:
        with contextlib.suppress(Exception):
            await session.aclose()
