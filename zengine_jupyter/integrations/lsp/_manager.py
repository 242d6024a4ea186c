"""LspManager: every language server of one project, started lazily.

Nothing starts up front: the first question about a file starts the server for its type,
if the program is installed. A missing program or a failed start is remembered (no retry on
each call); a server that crashes is restarted in the background at most ``MAX_RESTARTS``
times, then reported failed. In an untrusted project, servers known to run the project's
code start in a safe configuration or not at all (:func:`guard_untrusted`); the slot keeps
the note ``/lsp`` shows.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zengine_jupyter.integrations.lsp._client import LspClient
from zengine_jupyter.integrations.lsp._routing import LspRouter, Route
from zengine_jupyter.integrations.lsp._spec import BUILTIN_SPECS, LspServerEntry
from zengine_jupyter.integrations.lsp._untrusted import guard_untrusted
from zengine_jupyter.protocol import (
    JsonRpcError,
    LspServerStatus,
    LspUnavailableError,
    ProcessError,
)

if TYPE_CHECKING:
    from zengine_jupyter.integrations.lsp._spec import LspServerSpec
    from zengine_jupyter.integrations.lsp._untrusted import Guarded
    from zengine_jupyter.protocol import LspServerState

__all__ = ["MAX_RESTARTS", "LspManager", "LspManagerOptions"]

MAX_RESTARTS = 3
"""How often a crashed server is restarted before it is reported failed."""
_CLOSE_WAIT_S = 5.0


@dataclass(frozen=True)
class LspManagerOptions:
    """What a manager serves and how patient it is."""

    root: Path
    """The project root: the servers' workspace folder and working directory."""
    entries: tuple[LspServerEntry, ...] = ()
    """The user's ``[lsp.servers]`` entries (they win over built-ins for their file types)."""
    builtins: tuple[LspServerSpec, ...] = BUILTIN_SPECS
    search_path: str | None = None
    """Where programs are looked up; default: PATH plus the running Python's folder."""
    init_timeout_s: float = 30.0
    request_timeout_s: float = 30.0
    trusted: bool = True
    """False: the project is not trusted, so servers that would run its code start in their
    safe configuration or not at all."""


@dataclass
class _Slot:
    spec: LspServerSpec
    program: str | None = None
    state: LspServerState = "not_started"
    client: LspClient | None = None
    restarts: int = 0
    starts: int = 0
    """Start attempts (first start plus restarts): what "no retry" tests count."""
    detail: str | None = None
    starting: asyncio.Task[LspClient] | None = field(default=None, repr=False)
    note: str | None = None
    """How an untrusted project changed its start (safe mode, or not started and why)."""
    refused: bool = False
    """Not started at all in this untrusted project."""
    configured: LspServerSpec | None = None
    """The spec as configured (``spec`` may be its untrusted-project version)."""


class LspManager:
    """The language servers of one project. ``aclose()`` stops them all."""

    def __init__(self, options: LspManagerOptions) -> None:
        self.options = options
        self.root = options.root.resolve()
        self.router = LspRouter(
            options.entries,
            builtins=options.builtins,
            search_path=options.search_path,
            root=self.root,
            trusted=options.trusted,
        )
        self._slots: dict[str, _Slot] = {}
        self._routes: dict[str, Route | None] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    # ------------------------------------------------------------------ routing
    def route(self, path: Path) -> Route | None:
        """The server for ``path`` (cached per extension: the PATH lookup happens once)."""
        ext = path.suffix.lower()
        if ext not in self._routes:
            self._routes[ext] = self.router.route(path)
        return self._routes[ext]

    def _slot(self, route: Route) -> _Slot:
        slot = self._slots.get(route.spec.name)
        if slot is None:
            slot = self._slots[route.spec.name] = _Slot(route.spec, route.program)
            slot.configured = route.spec
            if route.program is None:
                slot.state = "not_installed"
                slot.detail = f"{route.spec.command} was not found on PATH"
            elif (guarded := self._guard(route.spec, route.program)) is not None:
                slot.note = guarded.note
                slot.refused = guarded.spec is None
                slot.spec = guarded.spec or slot.spec
        return slot

    def _guard(self, spec: LspServerSpec, program: str) -> Guarded | None:
        """The untrusted-project launch of ``spec`` (None: trusted, or nothing to change)."""
        return None if self.options.trusted else guard_untrusted(spec, program, self.root)

    # ------------------------------------------------------------------ clients
    async def client_for(self, path: Path) -> LspClient:
        """The running, initialized server for ``path``, starting it on first use.

        Raises :class:`LspUnavailableError` (naming the install command when it is not
        installed) without trying again when that was already found out.
        """
        route = self.route(path)
        if route is None:
            raise LspUnavailableError(
                f"no language server serves {path.suffix or 'extensionless'} files ({path.name})",
                server="none",
                hint="add one under [lsp.servers] with its command and file_types",
            )
        slot = self._slot(route)
        if slot.refused:
            raise LspUnavailableError(
                f"{slot.spec.name} was {slot.note}",
                server=slot.spec.name,
                hint="ask the user to trust the folder, or use Read and Grep instead",
            )
        client = slot.client
        if client is not None and not client.alive:
            self._crashed(slot, client)  # its watcher has not run yet
        elif client is not None and slot.state == "ready":
            return client
        if slot.state in ("not_installed", "failed"):
            raise self._unavailable(slot)
        if slot.starting is None:
            self._begin_start(slot)
        assert slot.starting is not None
        try:
            return await asyncio.shield(slot.starting)
        except (ProcessError, JsonRpcError) as exc:
            raise self._unavailable(slot) from exc

    def running_client(self, path: Path) -> LspClient | None:
        """The server for ``path`` if it is up and initialized; never starts anything."""
        route = self.route(path)
        slot = self._slots.get(route.spec.name) if route else None
        if slot is None or slot.client is None or not slot.client.alive:
            return None
        return slot.client if slot.client.initialized else None

    def server_state(self, path: Path) -> LspServerState | None:
        """The state of ``path``'s server (``None``: no server serves that file type; a server
        an untrusted project may not start counts as ``failed``: nothing will answer)."""
        route = self.route(path)
        if route is None:
            return None
        slot = self._slots.get(route.spec.name)
        if slot is None and route.program and not self.options.trusted:
            slot = self._slot(route)  # no start: only the untrusted-project decision
        if slot is None:
            return "not_started" if route.program else "not_installed"
        return "failed" if slot.refused else self._state(slot)

    def start_in_background(self, path: Path) -> None:
        """Start ``path``'s server for later use, if it is installed and not started yet."""
        route = self.route(path)
        if route is None or self._closed:
            return
        slot = self._slot(route)
        if slot.state == "not_started" and slot.starting is None and not slot.refused:
            self._begin_start(slot)

    def _begin_start(self, slot: _Slot) -> None:
        slot.state = "starting"
        slot.detail = None
        slot.starts += 1
        task = asyncio.get_running_loop().create_task(
            self._start(slot), name=f"lsp-start-{slot.spec.name}"
        )
        slot.starting = task
        self._track(task)

    async def _start(self, slot: _Slot) -> LspClient:
        assert slot.program is not None
        client: LspClient | None = None
        try:
            client = await LspClient.launch(slot.spec, slot.program, self.root)
            slot.client = client
            await client.initialize(self.options.init_timeout_s)
        except (ProcessError, JsonRpcError) as exc:
            tail = (await client.peer.stderr_settled()).splitlines()[-3:] if client else []
            slot.state = "failed"
            slot.detail = f"it did not start: {exc.message}" + (
                f" (stderr: {' | '.join(tail)})" if tail else ""
            )
            slot.client = None
            if client is not None:
                await client.aclose()
            raise
        finally:
            slot.starting = None
        slot.state = "ready"
        self._track(asyncio.get_running_loop().create_task(self._watch(slot, client)))
        return client

    async def _watch(self, slot: _Slot, client: LspClient) -> None:
        """Notice a server whose process ends on its own, and reap it."""
        await client.wait_closed()
        client.wake()
        self._crashed(slot, client)
        await client.aclose()

    def _crashed(self, slot: _Slot, client: LspClient) -> None:
        """Restart a crashed server in the background, at most MAX_RESTARTS times.

        Synchronous and idempotent: the watcher and ``client_for`` may both notice first.
        """
        if client.closing or self._closed or slot.client is not client:
            return
        returncode = client.peer.returncode
        code = "unknown" if returncode is None else str(returncode)
        slot.client = None
        if slot.restarts >= MAX_RESTARTS:
            slot.state = "failed"
            slot.detail = (
                f"it crashed {slot.restarts + 1} times (exit code {code}); "
                f"not restarted after {MAX_RESTARTS} restarts"
            )
            return
        slot.restarts += 1
        self._begin_start(slot)
        slot.detail = f"it crashed (exit code {code}); restart {slot.restarts} of {MAX_RESTARTS}"

    def _track(self, task: asyncio.Task[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_consume)

    def _unavailable(self, slot: _Slot) -> LspUnavailableError:
        spec = slot.spec
        if slot.state == "not_installed":
            install = spec.install or "install it and make sure it is on PATH"
            return LspUnavailableError(
                f"{spec.name} is not installed (needed for {', '.join(spec.file_types)} files)",
                server=spec.name,
                install=spec.install,
                hint=f"install it with: {install}",
            )
        return LspUnavailableError(
            f"{spec.name} is not available: {slot.detail or 'it failed'}",
            server=spec.name,
            install=spec.install,
            hint="check its command in [lsp.servers] or its log; it is not retried automatically",
        )

    # ------------------------------------------------------------------ status
    def _state(self, slot: _Slot) -> LspServerState:
        client = slot.client
        if slot.state == "ready" and client is not None:
            if not client.alive:
                return "crashed"  # the watcher is about to restart it
            if client.busy:
                return "indexing"
        return slot.state

    def status(self) -> list[LspServerStatus]:
        """One entry per known server (user entries first), for the ``/lsp`` view."""
        rows: list[LspServerStatus] = []
        for spec in self.router.specs:
            slot = self._slots.get(spec.name)
            skipped = self.router.skipped(spec)
            if slot is None:
                program = self.router.locate(spec)
                state: LspServerState = "not_started" if program or skipped else "not_installed"
                slot = _Slot(spec, state=state, detail=skipped)
                if program and (guarded := self._guard(spec, program)) is not None:
                    slot.note = guarded.note
            client = slot.client
            detail = slot.detail
            if client is not None and client.busy:
                detail = ", ".join(client.progress.titles)
            detail = "; ".join(d for d in (detail, slot.note) if d) or None
            rows.append(
                LspServerStatus(
                    name=spec.name,
                    state="stopped" if self._closed and slot.starts else self._state(slot),
                    command=list(spec.argv),
                    file_types=list(spec.file_types),
                    builtin=spec.builtin,
                    restarts=slot.restarts,
                    open_documents=client.open_documents if client else 0,
                    pid=client.peer.pid if client and client.alive else None,
                    detail=detail,
                    install=spec.install,
                    version=self._version(spec),
                )
            )
        return rows

    def _version(self, spec: LspServerSpec) -> str | None:
        found = self.router.typescript() if spec.typescript is not None else None
        return found.label if found is not None else None

    def starts(self, name: str) -> int:
        """How many times server ``name`` was started (first start plus restarts)."""
        slot = self._slots.get(name)
        return slot.starts if slot else 0

    # ------------------------------------------------------------------ settings
    async def reconfigure(self, entries: tuple[LspServerEntry, ...]) -> tuple[str, ...]:
        """New ``[lsp.servers]`` (same trust): file types are routed again; a known server is
        stopped (and forgotten: the next question starts it afresh) only when its spec changed
        or no file type routes to it any more. The others keep running. Returns the stopped
        ones' names."""
        opts = self.options = replace(self.options, entries=entries)
        self.router = LspRouter(entries, builtins=opts.builtins, search_path=opts.search_path)
        self._routes.clear()
        wanted = {spec.name: spec for spec in self.router.specs}
        stopped: list[str] = []
        for name, slot in list(self._slots.items()):
            routed = any(
                (route := self.route(Path(f"x{ext}"))) is not None and route.spec.name == name
                for ext in slot.spec.file_types
            )
            if routed and wanted.get(name) == slot.configured:
                continue
            del self._slots[name]
            stopped.append(name)
            if slot.starting is not None:
                slot.starting.cancel()
                await asyncio.gather(slot.starting, return_exceptions=True)
            if slot.client is not None:
                client, slot.client = slot.client, None
                await client.aclose()
        return tuple(stopped)

    # ------------------------------------------------------------------ shutdown
    async def aclose(self) -> None:
        """Stop every server and background task (idempotent)."""
        if self._closed:
            return
        self._closed = True
        starting = [s.starting for s in self._slots.values() if s.starting is not None]
        for task in starting:
            task.cancel()
        await asyncio.gather(*starting, return_exceptions=True)
        for slot in self._slots.values():
            if slot.client is not None:
                await slot.client.aclose()  # its watcher then returns
                slot.client = None
        pending = list(self._tasks)
        if pending:
            _done, late = await asyncio.wait(pending, timeout=_CLOSE_WAIT_S)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)

    async def __aenter__(self) -> LspManager:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _consume(task: asyncio.Task[Any]) -> None:
    # Failures are recorded on the slot; read the exception so asyncio does not log it.
    if not task.cancelled():
        task.exception()
