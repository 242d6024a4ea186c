"""A chat: opened new or resumed (with crash repair), one turn at a time, interruptible.

``Session.open`` loads the effective settings, builds the model client, the permission gate
and the tools; ``submit`` runs a turn; ``interrupt`` stops it cleanly (an Interrupted turn);
frontends follow it through ``subscribe``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from zengine_jupyter.config import (
    PERMISSION_MODES,
    aload_settings,
    data_dir,
    is_permission_mode,
)
from zengine_jupyter.engine._bus import EventBus, Subscription
from zengine_jupyter.engine._calls import CallEnv
from zengine_jupyter.engine._catalog import open_catalog
from zengine_jupyter.engine._commands import (
    BUILTIN_COMMANDS,
    parse_command_line,
    unknown_command,
)
from zengine_jupyter.engine._compaction import TurnContext
from zengine_jupyter.engine._context import ContextGauge
from zengine_jupyter.engine._custom_commands import CustomCommands
from zengine_jupyter.engine._extension import EXTENSIONS, SessionExtension
from zengine_jupyter.engine._journal import Journal
from zengine_jupyter.engine._live_settings import LiveSettings
from zengine_jupyter.engine._parts import SessionParts
from zengine_jupyter.engine._ports import FixedApprovals
from zengine_jupyter.engine._prompt import system_prompt
from zengine_jupyter.engine._resume import repair_on_resume
from zengine_jupyter.engine._roles import ModelRoles
from zengine_jupyter.engine._task import TaskTool
from zengine_jupyter.engine._titles import Titles
from zengine_jupyter.engine._turn import TurnOutcome, TurnRunner
from zengine_jupyter.engine._unused import check_project_folder
from zengine_jupyter.engine._wiring import client_deps, provider_options
from zengine_jupyter.engine.tools import (
    GateReads,
    ReadTracker,
    ShellRunner,
    ToolContext,
    builtin_tools,
)
from zengine_jupyter.host import run_hooks, which
from zengine_jupyter.host.checkpoint import ShadowRepository
from zengine_jupyter.llm import CostMeter, ProviderClient, build_client
from zengine_jupyter.policy import PermissionGate, PermissionPolicy
from zengine_jupyter.protocol import (
    EngineEvent,
    HookEventName,
    HookPayload,
    ModeChangeRecord,
    Notice,
    ToolSpec,
    TrustRequired,
    ZengineError,
    new_id,
)
from zengine_jupyter.store import SessionStore

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Mapping, Sequence
    from pathlib import Path

    from zengine_jupyter.config import McpServerSettings, PermissionMode
    from zengine_jupyter.engine._extension import SlashCommand
    from zengine_jupyter.engine._journal import Journaling
    from zengine_jupyter.engine._ports import ApprovalPort
    from zengine_jupyter.engine.tools import Tool, ToolOutput
    from zengine_jupyter.llm import ClientDeps, ModelClient, ModelInfo, ProviderOptions
    from zengine_jupyter.protocol import ImagePart, RecordedToolCall

__all__ = ["Session", "SessionOptions", "TurnInProgressError"]


class TurnInProgressError(ZengineError):
    """A turn is already running in this chat."""


@dataclass(frozen=True)
class SessionOptions:
    """How to open a chat. Unset fields come from the settings."""

    project: Path
    session_id: str | None = None
    """Resume this chat (repairing what a crash left open); None: a new chat."""
    approvals: ApprovalPort | None = None
    """Who answers approval questions; None: nobody (non-interactive), which means deny."""
    client: ModelClient | None = None
    """A ready model client (tests, replay); None: built from the settings."""
    mode: PermissionMode | None = None
    model: str | None = None
    environ: Mapping[str, str] | None = None
    notebook: str | None = None
    extensions: tuple[Callable[[], SessionExtension], ...] = ()
    """Added to :data:`EXTENSIONS` for this chat (a frontend's own tools, tests)."""
    mcp_servers: Mapping[str, McpServerSettings] | None = None
    """MCP servers a client hands this chat (an ACP client's ``mcpServers``): the user's, as if
    in the user's settings; one replaces a settings server of the same name."""


class Session:
    """One chat on one project."""

    def __init__(self, parts: SessionParts) -> None:
        self.id = parts.id
        self.root = parts.root
        self.writer = parts.writer
        self.settings = parts.settings
        self.client = parts.client
        self.gate = parts.gate
        self.meter = parts.meter
        self.approvals = parts.approvals
        self.tools: dict[str, Tool[Any]] = dict(parts.tools)
        self.ctx = parts.ctx
        self.shadow = parts.shadow
        self.notebook = parts.notebook
        self.provider = parts.provider
        self._client_is_ours = parts.client_is_ours
        self.catalog = parts.catalog
        self.roles = ModelRoles(self.client, self.provider, self._deps())
        """The client of each model role (``roles.client("fast")``)."""
        context = self.settings.settings.context
        self.gauge = ContextGauge(threshold=context.compact_threshold, auto=context.auto_compact)
        """The context count against the main model's window (``[context]``)."""
        self.titles = Titles(self)
        makers = [CustomCommands, *EXTENSIONS, *parts.extensions]
        self.extensions: list[SessionExtension] = [make() for make in makers]
        self._after_tool = tuple(e for e in self.extensions if _overrides(e, "after_tool"))
        self._after_write = tuple(e for e in self.extensions if _overrides(e, "after_write"))
        """The extensions that adjust results, of every call or of calls that changed files
        (the rest would be awaited for nothing on every tool call)."""
        self.commands: dict[str, SlashCommand] = dict(BUILTIN_COMMANDS)
        self.bus = EventBus(self.id)
        self.journal = Journal(self.writer, self.bus)
        self._startup: list[EngineEvent] = []
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[TurnOutcome] | None = None
        self._interrupting = False
        self._closed = False
        self.environ = parts.environ
        self.mcp_servers = parts.mcp_servers
        self._live = LiveSettings(self.root, self.environ)
        self.created = False
        """This open created the chat (:func:`close_discarding_unused` may delete it)."""
        self._preparing: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ opening
    @classmethod
    async def open(cls, options: SessionOptions) -> Session:
        if options.mode is not None and not is_permission_mode(options.mode):  # an untyped caller
            raise ZengineError(f"unknown permission mode {options.mode!r}",
                               hint=f"choose from {', '.join(PERMISSION_MODES)}")  # fmt: skip
        root = options.project.resolve()
        check_project_folder(root)  # before anything is recorded
        settings = await aload_settings(root, environ=options.environ)
        store = SessionStore()
        if options.session_id is not None:
            writer = await store.aopen(options.session_id)
            repair_on_resume(writer)
        else:
            writer = await asyncio.to_thread(store.create, project=root)
        state = writer.state()
        meter = CostMeter(total_usd=state.cost_usd, unknown=state.unpriced_requests)
        effective = settings.settings
        provider = provider_options(effective, settings.provider_issues)
        if options.model:
            provider = replace(provider, model=options.model)
        catalog = await open_catalog(options.environ)
        deps = client_deps(effective, meter, catalog)
        client = options.client or build_client(provider, "main", deps)
        policy = PermissionPolicy.from_settings(effective.permissions, root)
        mode = options.mode or (state.mode if is_permission_mode(state.mode) else None)
        if mode is not None:
            policy = replace(policy, mode=mode)
        artifacts = writer.folder / "artifacts"
        gate = PermissionGate(root, policy)
        session = cls(
            SessionParts(
                id=writer.folder.name,
                root=root,
                writer=writer,
                settings=settings,
                client=client,
                client_is_ours=options.client is None,
                gate=gate,
                meter=meter,
                approvals=options.approvals or FixedApprovals(allow=False),
                tools={tool.name: tool for tool in builtin_tools()},
                ctx=ToolContext(
                    root=root,
                    artifacts=artifacts,
                    reads=ReadTracker(),
                    shells=ShellRunner(root, artifacts),
                    additional_directories=policy.additional_directories,
                    read_decision=GateReads(gate),
                ),
                shadow=ShadowRepository(root, data_dir()) if which("git") else None,
                notebook=options.notebook,
                provider=provider,
                catalog=catalog,
                extensions=options.extensions,
                environ=options.environ,
                mcp_servers=dict(options.mcp_servers or {}),
            )
        )
        session.created = options.session_id is None
        session.tools["Task"] = TaskTool(session)
        session._prepare_client()
        if options.mode and options.mode != state.mode:
            writer.append(ModeChangeRecord(mode=options.mode))
        session._announce()
        await session._live.start()
        for extension in session.extensions:
            await extension.start(session)
        await session._hook("session_start")
        return session

    def _prepare_client(self) -> None:
        """Make the model client's connection pool (its CA bundle: tens of ms, in a thread)
        while the chat opens and the first request is built, not after; the first request
        waits for it if it is not done (the pool is made once)."""
        if not isinstance(self.client, ProviderClient):
            return
        task = asyncio.get_running_loop().create_task(self.client.prepare(),
                                                      name="zengine-client-prepare")  # fmt: skip
        task.add_done_callback(_retrieved)  # a failure is the first request's to report
        self._preparing = task

    # ------------------------------------------------------------------ settings
    async def set_provider(self, provider: ProviderOptions) -> None:
        """Use other model settings from the next request on (/model, /effort)."""
        if self.busy:
            raise TurnInProgressError("the model cannot change during a turn", hint="wait")
        await self.use_provider(provider)

    async def use_provider(self, provider: ProviderOptions) -> None:
        """:meth:`set_provider` for a caller that holds the chat idle (a settings reload)."""
        self.provider = provider
        if self._preparing is not None:  # its pool is closed with it, not left behind
            await asyncio.gather(self._preparing, return_exceptions=True)
        if self._client_is_ours:
            await self.client.aclose()
            deps = client_deps(self.settings.settings, self.meter, self.catalog)
            self.client = build_client(provider, "main", deps)
        await self.roles.replace(self.client, provider, self._deps())
        self.gauge.window = None  # the model may have another window

    def _deps(self) -> ClientDeps | None:
        """What role clients are built with; None when the main client was handed in."""
        if not self._client_is_ours:
            return None
        return client_deps(self.settings.settings, self.meter, self.catalog)

    def model_info(self, model: str | None = None) -> ModelInfo | None:
        """What the catalog knows of ``model`` (default: the chat's model) on the chat's host:
        its context window and output limit (``context``, ``output``), its prices."""
        if isinstance(self.client, ProviderClient):
            return self.client.model_info(model)
        wanted = model or self.provider.model
        if self.catalog is None or wanted is None:
            return None
        return self.catalog.model(wanted)

    async def reload_settings(self) -> None:
        """Load the layers again now (after trusting the folder): gate rules, model, hooks,
        servers (``engine/_live_settings.py``). Not during a turn."""
        if self.busy:
            raise TurnInProgressError("settings cannot reload during a turn",
                                      hint="they reload when the turn ends")  # fmt: skip
        await self._live.reload(self)

    async def refresh_settings(self) -> bool:
        """Reload if a settings file changed since the last look (a ``stat`` per file, off the
        loop): the kernel's file watch. A chat in a turn reloads at its next turn start
        instead. Whether it reloaded."""
        if self._closed:
            return False
        return await self._live.refresh(self)

    def prepare_request(self) -> tuple[str, list[ToolSpec]]:
        """The system prompt and tools for the next request, with the extensions' share."""
        hidden: set[str] = set()
        extra: list[ToolSpec] = []
        notes: list[str] = []
        for extension in self.extensions:
            hidden |= extension.hidden_tools(self)
            extra += extension.request_tools(self)
            if (note := extension.reminder(self)) is not None:
                notes.append(note)
        tools = [_spec(t) for name, t in self.tools.items() if name not in hidden] + extra
        system = system_prompt(self.root, self.mode, self.notebook)
        return "\n".join([system, *notes]), tools

    async def after_tool(
        self, call: RecordedToolCall, tool: Tool[Any], output: ToolOutput
    ) -> ToolOutput:
        """Every extension's ``after_tool``, then (when it changed files) ``after_write``."""
        for extension in self._after_tool:
            output = await extension.after_tool(self, call, tool, output)
        if output.changed_paths:
            for extension in self._after_write:
                output = await extension.after_write(self, call, tool, output)
        return output

    async def _before_first_request(self, turn_id: str) -> None:
        for extension in self.extensions:
            await extension.before_first_request(self, turn_id)

    async def _before_first_tool(self, turn_id: str) -> None:
        for extension in self.extensions:
            await extension.before_first_tool(self, turn_id)

    async def _at_stop(self, outcome: TurnOutcome) -> str | None:
        for extension in self.extensions:
            if (more := await extension.at_stop(self, outcome)) is not None:
                return more
        return None

    async def _hook(self, event: HookEventName, prompt: str | None = None) -> None:
        """Run the (trusted) hooks of ``event``; a failing hook is a notice, never a crash."""
        hooks = self.settings.settings.hooks
        if not getattr(hooks, event):
            return
        payload = HookPayload(event=event, session_id=self.id, project_dir=str(self.root),
                              prompt=prompt)  # fmt: skip
        outcome = await run_hooks(hooks, payload, cwd=self.root)
        for failed in outcome.failures:
            text = f"{event} hook {failed.argv[0]!r} failed: {failed.returncode}"
            self.bus.publish(Notice(session_id=self.id, topic="hooks", text=text))

    def _announce(self) -> None:
        """Events a frontend should see on connecting (replayed to each new subscriber)."""
        if self.settings.withheld:
            self._startup.append(
                TrustRequired(session_id=self.id, folder=str(self.root),
                              withheld=list(dict.fromkeys(w.key for w in self.settings.withheld)))
            )  # fmt: skip
        for issue in self.settings.issues:
            self._startup.append(
                Notice(session_id=self.id, topic="settings", text=issue.describe())
            )

    def announce(self, event: EngineEvent) -> None:
        """A start-up event from an extension (sandbox off, say): published now and replayed
        to each new subscriber."""
        self._startup.append(event)
        self.bus.publish(event)

    def call_env(
        self,
        turn_id: str,
        *,
        journal: Journaling | None = None,
        tools: Mapping[str, Tool[Any]] | None = None,
        ctx: ToolContext | None = None,
    ) -> CallEnv:
        """What running a call of turn ``turn_id`` needs from this chat: its gate, approvals,
        hooks and extensions. A subagent passes its own journal, tools and context."""
        return CallEnv(
            session_id=self.id,
            turn_id=turn_id,
            root=self.root,
            journal=self.journal if journal is None else journal,
            gate=self.gate,
            approvals=self.approvals,
            tools=self.tools if tools is None else tools,
            ctx=self.ctx if ctx is None else ctx,
            hooks=self.settings.settings.hooks,
            trusted=self.settings.trusted,
            after_tool=self.after_tool if self._after_tool or self._after_write else None,
            after_writes_only=not self._after_tool,
        )

    # ------------------------------------------------------------------ use
    @property
    def mode(self) -> PermissionMode:
        return self.gate.policy.mode

    @property
    def busy(self) -> bool:
        """A turn is running, or something holds the chat :meth:`idle`."""
        return (self._task is not None and not self._task.done()) or self._lock.locked()

    @contextlib.asynccontextmanager
    async def idle(self, action: str) -> AsyncIterator[None]:
        """Hold the chat idle for ``action`` (a rewind, say): no turn starts until the block
        ends. Raises :class:`TurnInProgressError` at once if a turn is running."""
        if self.busy:
            raise TurnInProgressError(
                f"cannot {action} chat {self.id} while a turn is running",
                hint=f"interrupt the turn or wait for it to end, then {action}",
            )
        async with self._lock:
            yield

    def subscribe(self) -> Subscription:
        """A new event queue; it starts with the chat's start-up notices."""
        sub = self.bus.subscribe()
        for event in self._startup:
            sub._offer(event, self.id)
        return sub

    async def submit(self, text: str, images: Sequence[ImagePart] = ()) -> TurnOutcome:
        """Run one turn for the user's ``text``; returns when it ends (or is interrupted).

        ``images`` (an ACP prompt's) go after the text, unless the catalog says the model
        takes none: then the text says they were left out. A command takes no images."""
        if self._closed:
            raise ZengineError(f"chat {self.id} is closed", hint="open it again to go on")
        if self.busy:
            raise TurnInProgressError(
                f"a turn is already running in chat {self.id}",
                hint="wait for it to finish, or interrupt it",
            )
        async with self._lock:  # a settings file changed since the last turn: reload first
            await self._live.refresh(self, in_turn=True)
        if (line := parse_command_line(text)) is not None:
            name, rest = line
            command = self.commands.get(name)
            if command is None:  # never sent to the model as text
                answer = unknown_command(name, self.commands)
                self.bus.publish(Notice(session_id=self.id, topic="commands", text=answer))
                return TurnOutcome("", "failed", text=answer, reason=f"unknown command /{name}")
            result = await command(self, rest)
            if result.text:
                self.bus.publish(Notice(session_id=self.id, topic=f"/{name}",
                                        text=result.text))  # fmt: skip
            if result.prompt is None:
                return TurnOutcome("", "completed", text=result.text)
            text = result.prompt
            if result.allow:
                return await self._with_rules(result.allow, text)
            images = ()
        info = self.model_info() if images else None
        if images and info is not None and info.images is False:
            text += (f"\n\n[{len(images)} attached image(s) left out: {info.id} does not take "
                     "images]")  # fmt: skip
            images = ()
        return await self._turn(text, images)

    async def _turn(self, text: str, images: Sequence[ImagePart] = ()) -> TurnOutcome:
        """The turn itself (``text`` is a prompt: never dispatched as a command again)."""
        async with self._lock:
            await self._hook("user_prompt_submit", text)
            turn_id = new_id()
            for extension in self.extensions:
                await extension.turn_started(self, turn_id)
            runner = TurnRunner(
                journal=self.journal,
                client=self.client,
                env=self.call_env(turn_id),
                prepare=self.prepare_request,
                meter=self.meter,
                shadow=self.shadow,
                at_stop=self._at_stop,
                context=TurnContext(self, text, turn_id),
                before_first=functools.partial(self._before_first_request, turn_id),
                before_tools=functools.partial(self._before_first_tool, turn_id),
            )
            self._task = asyncio.create_task(runner.run(text, images),
                                             name=f"zengine-turn-{turn_id}")  # fmt: skip
            try:
                outcome = await self._task
                self.titles.after_turn(outcome.status == "completed")
                return outcome
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if self._interrupting and (current is None or not current.cancelling()):
                    return TurnOutcome(turn_id, "interrupted", reason="interrupted by the user")
                raise
            finally:
                self._task = None
                self._interrupting = False
                await self._hook("stop")

    async def _with_rules(self, rules: tuple[str, ...], text: str) -> TurnOutcome:
        """Run one turn with extra allow rules (a command's allowed-tools), then drop them."""
        before = self.gate.policy
        for rule in rules:
            self.gate.policy = self.gate.policy.with_rule(rule)
        try:
            return await self._turn(text)
        finally:
            self.gate.policy = before

    def interrupt(self) -> bool:
        """Stop the running turn (its open tool calls are answered "interrupted")."""
        if self._task is None or self._task.done():
            return False
        self._interrupting = True
        self._task.cancel()
        return True

    async def aclose(self) -> None:
        """Stop any turn and background shell, and close the log (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self.interrupt() and self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
        if self._preparing is not None and not self._preparing.done():
            self._preparing.cancel()
            await asyncio.gather(self._preparing, return_exceptions=True)
        await self.titles.aclose()
        for extension in reversed(self.extensions):
            await extension.aclose()
        await self.ctx.shells.aclose()
        await self.roles.aclose()
        await self.client.aclose()
        await self.writer.aclose()
        self.bus.close()


def _retrieved(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()


def _spec(tool: Tool[Any]) -> ToolSpec:
    return ToolSpec(name=tool.name, description=tool.description, input_schema=tool.input_schema())


def _overrides(extension: SessionExtension, hook: str) -> bool:
    """Whether ``extension``'s class has its own ``hook`` (not the base's do-nothing one)."""
    return getattr(type(extension), hook) is not getattr(SessionExtension, hook)
