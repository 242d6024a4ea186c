"""One running language server: the initialize handshake, document sync from disk,
diagnostics (published by the server, or pulled from one that announces
``diagnosticProvider``, as TypeScript 7's ``tsc --lsp`` does) and work-done progress."""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zengine_jupyter.integrations.jsonrpc import StdioOptions, StdioPeer, spawn_stdio_peer
from zengine_jupyter.integrations.lsp._diagnostics import DiagnosticStore, Published
from zengine_jupyter.integrations.lsp._progress import ProgressTracker
from zengine_jupyter.integrations.lsp._text import path_to_uri, read_text
from zengine_jupyter.protocol import JsonRpcError, JsonRpcTimeoutError, LspError

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.integrations.lsp._spec import LspServerSpec

__all__ = ["CLIENT_CAPABILITIES", "LspClient"]

_SHUTDOWN_S = 2.0
"""How long ``shutdown`` + ``exit`` may take before the process is simply stopped."""
_EXIT_GRACE_S = 0.5
"""After ``shutdown`` and ``exit``, how long a server may take to go before SIGTERM."""
OPENED_SETTLE_S = 0.25
"""After the first answer for a file just opened, how long a second one at the same version
may take to replace it: a basedpyright that has just started published a new file's
diagnostics first without its checker's findings, then with them 15-90 ms later."""
_OPENED_ANSWERS = 3
"""At most this many later answers are waited for (a server that keeps publishing)."""

CLIENT_CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "window": {"workDoneProgress": True, "showMessage": {}},
    "workspace": {
        "configuration": True,
        "workspaceFolders": True,
        "applyEdit": False,
        "symbol": {},
    },
    "textDocument": {
        "synchronization": {"dynamicRegistration": False, "didSave": False},
        "publishDiagnostics": {"versionSupport": True, "relatedInformation": False},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "definition": {"linkSupport": True},
        "implementation": {"linkSupport": True},
        "references": {},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "callHierarchy": {},
        "rename": {"prepareSupport": False},
    },
}


@dataclass
class _Document:
    version: int
    text: str


class LspClient:
    """A started server process spoken to over stdio. Built by :meth:`launch`."""

    def __init__(self, spec: LspServerSpec, peer: StdioPeer, root: Path) -> None:
        self.spec = spec
        self.root = root
        self.peer = peer
        self.progress = ProgressTracker()
        self.capabilities: dict[str, Any] = {}
        self.initialized = False
        self.last_message: str | None = None
        self._documents: dict[str, _Document] = {}
        self.diagnostics = DiagnosticStore()
        self._sync_lock = asyncio.Lock()
        self._pulls: set[asyncio.Task[Any]] = set()
        self._closing = False
        conn = peer.connection
        conn.on_notification("textDocument/publishDiagnostics", self._on_diagnostics)
        conn.on_notification("$/progress", self.progress.update)
        conn.on_notification("window/showMessage", self._on_message)
        for method in (
            "window/workDoneProgress/create",
            "client/registerCapability",
            "client/unregisterCapability",
            "window/showMessageRequest",
            "workspace/diagnostic/refresh",
        ):
            conn.on_request(method, _answer_null)
        conn.on_request("workspace/configuration", self._configuration)
        conn.on_request("workspace/workspaceFolders", self._folders)
        conn.on_request("workspace/applyEdit", _refuse_edit)
        conn.start()

    @classmethod
    async def launch(cls, spec: LspServerSpec, program: str, root: Path) -> LspClient:
        """Start the process (not yet initialized); raises ``ProcessError``."""
        peer = await spawn_stdio_peer(
            [program, *spec.args],
            StdioOptions(
                name=spec.name,
                cwd=root,
                env=spec.environment(os.environ),
                cancel_method="$/cancelRequest",
                grace_s=_EXIT_GRACE_S,
            ),
        )
        return cls(spec, peer, root)

    async def initialize(self, timeout_s: float) -> None:
        """The ``initialize`` / ``initialized`` handshake; raises :class:`JsonRpcError`."""
        uri = path_to_uri(self.root)
        params: dict[str, Any] = {
            "processId": os.getpid(),
            "clientInfo": {"name": "zengine-jupyter"},
            "rootUri": uri,
            "rootPath": str(self.root),
            "workspaceFolders": [{"uri": uri, "name": self.root.name}],
            "capabilities": CLIENT_CAPABILITIES,
        }
        if self.spec.initialization_options is not None:
            params["initializationOptions"] = dict(self.spec.initialization_options)
        result = await self.peer.connection.request("initialize", params, timeout_s=timeout_s)
        caps = result.get("capabilities") if isinstance(result, dict) else None
        self.capabilities = caps if isinstance(caps, dict) else {}
        await self.peer.connection.notify("initialized", {})
        self.initialized = True

    # ------------------------------------------------------------------ state
    @property
    def alive(self) -> bool:
        return not self.peer.connection.closed and self.peer.returncode is None

    @property
    def busy(self) -> bool:
        """A work-done progress token (indexing, analysis) is open."""
        return self.progress.busy

    @property
    def open_documents(self) -> int:
        return len(self._documents)

    def supports(self, provider: str) -> bool:
        """Whether the server announced ``provider`` (e.g. ``"renameProvider"``)."""
        value = self.capabilities.get(provider)
        return value is not None and value is not False

    @property
    def pulls_diagnostics(self) -> bool:
        """The server answers ``textDocument/diagnostic`` (LSP 3.17 pull diagnostics)."""
        return self.supports("diagnosticProvider")

    def published(self, path: Path) -> Published | None:
        """The latest diagnostics the server published for ``path``, if any."""
        return self.diagnostics.get(path_to_uri(path))

    # ------------------------------------------------------------------ requests
    async def request(self, method: str, params: Any, timeout_s: float) -> Any:
        return await self.peer.connection.request(method, params, timeout_s=timeout_s)

    async def sync(self, path: Path) -> tuple[int, bool]:
        """Tell the server the file's content on disk (didOpen, else didChange if it changed).

        Returns the document version the server now has, and whether this call sent it.
        """
        try:
            text = await asyncio.to_thread(read_text, path)
        except OSError as exc:
            raise LspError(
                f"cannot read {path} for {self.spec.name}: {exc.strerror or exc}",
                hint="check the path",
            ) from exc
        uri = path_to_uri(path)
        async with self._sync_lock:
            doc = self._documents.get(uri)
            conn = self.peer.connection
            if doc is None:
                doc = _Document(1, text)
                self._documents[uri] = doc
                language = self.spec.language_id(path.suffix)
                item = {"uri": uri, "languageId": language, "version": 1, "text": text}
                await conn.notify("textDocument/didOpen", {"textDocument": item})
                return 1, True
            if doc.text != text:
                doc.version += 1
                doc.text = text
                await conn.notify(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": uri, "version": doc.version},
                        "contentChanges": [{"text": text}],
                    },
                )
                return doc.version, True
            return doc.version, False

    async def wait_published(
        self, path: Path, *, version: int, after: int, timeout_s: float
    ) -> Published | None:
        """Wait for diagnostics of ``path`` at ``version`` or later, published after
        generation ``after`` (``DiagnosticStore.wait``); ``None`` when none came within
        ``timeout_s`` or the server went away."""
        uri = path_to_uri(path)
        return await self.diagnostics.wait(
            uri, version=version, after=after, timeout_s=timeout_s, alive=lambda: self.alive
        )

    async def fresh_diagnostics(self, path: Path, timeout_s: float) -> Published | None:
        """Sync ``path`` from disk and return diagnostics for exactly that content, waiting
        up to ``timeout_s`` for the server to publish them (``None`` when it did not)."""
        before = self.published(path)
        version, sent = await self.sync(path)
        if (
            not sent
            and before is not None
            and (before.version is None or before.version >= version)
        ):
            return before
        if self.pulls_diagnostics:
            return await self.pull(path, version, timeout_s)
        after = before.generation if before is not None and sent else 0
        published = await self.wait_published(
            path, version=version, after=after, timeout_s=timeout_s
        )
        if sent and version == 1:  # opened just now: its first answer may not be the whole one
            for _ in range(_OPENED_ANSWERS):
                if published is None:
                    break
                later = await self.wait_published(
                    path, version=1, after=published.generation, timeout_s=OPENED_SETTLE_S
                )
                if later is None:
                    break
                published = later
        return published

    async def pull(self, path: Path, version: int, timeout_s: float) -> Published | None:
        """Ask for ``path``'s diagnostics at the synced ``version`` and record them like a
        publish (``None`` when no answer came within ``timeout_s``)."""
        uri = path_to_uri(path)
        params = {"textDocument": {"uri": uri}}
        try:
            result = await self.request("textDocument/diagnostic", params, timeout_s)
        except JsonRpcTimeoutError:
            return None
        items = result.get("items") if isinstance(result, dict) else None
        if not isinstance(items, list):
            return self.diagnostics.get(uri)  # "unchanged" (never asked for) or malformed
        return self.diagnostics.record(uri, version, items)

    def analyse_in_background(self, path: Path) -> None:
        """A pull server analyses only when asked: ask now, so the file counts as analysed
        for the next write (a server that publishes on its own needs nothing)."""
        doc = self._documents.get(path_to_uri(path))
        if not self.pulls_diagnostics or doc is None or self._closing:
            return
        task = asyncio.get_running_loop().create_task(self._pull_quietly(path, doc.version))
        self._pulls.add(task)
        task.add_done_callback(self._pulls.discard)

    async def _pull_quietly(self, path: Path, version: int) -> None:
        with contextlib.suppress(JsonRpcError):
            await self.pull(path, version, timeout_s=60.0)

    # ------------------------------------------------------------------ handlers
    def _on_diagnostics(self, params: Any) -> None:
        if not isinstance(params, dict) or not isinstance(params.get("uri"), str):
            return
        version = params.get("version")
        self.diagnostics.record(
            params["uri"], version if isinstance(version, int) else None, params.get("diagnostics")
        )

    def _on_message(self, params: Any) -> None:
        if isinstance(params, dict) and isinstance(params.get("message"), str):
            self.last_message = params["message"][:300]

    async def _configuration(self, params: Any) -> list[Any]:
        """Each requested section from the spec's initialization options (else ``None``)."""
        items = params.get("items") if isinstance(params, dict) else None
        settings = dict(self.spec.initialization_options or {})
        return [
            _section(settings, item.get("section")) if isinstance(item, dict) else None
            for item in (items if isinstance(items, list) else [])
        ]

    async def _folders(self, _params: Any) -> list[dict[str, str]]:
        return [{"uri": path_to_uri(self.root), "name": self.root.name}]

    # ------------------------------------------------------------------ shutdown
    async def wait_closed(self) -> None:
        """Return when the connection ends or the process exits (or :meth:`aclose` ran)."""
        await self.peer.wait_ended()

    @property
    def closing(self) -> bool:
        return self._closing

    def wake(self) -> None:
        """Release every :meth:`wait_published` waiter (the server died or is closing)."""
        self.diagnostics.wake()

    async def aclose(self) -> None:
        """``shutdown`` + ``exit`` when it still answers, then stop the process (idempotent)."""
        if self._closing:
            return
        self._closing = True
        self.wake()
        for task in list(self._pulls):
            task.cancel()
        await asyncio.gather(*self._pulls, return_exceptions=True)
        if self.alive and self.initialized:
            with contextlib.suppress(JsonRpcError, TimeoutError):
                async with asyncio.timeout(_SHUTDOWN_S):
                    await self.peer.connection.request("shutdown", None)
                    await self.peer.connection.notify("exit")
        await self.peer.aclose()


async def _answer_null(_params: Any) -> None:
    return None


def _section(settings: Any, section: Any) -> Any:
    """``settings["a"]["b"]`` for section ``"a.b"`` (``None`` when absent)."""
    value = settings
    for part in str(section).split(".") if section else []:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


async def _refuse_edit(_params: Any) -> dict[str, Any]:
    # Edits are previewed, never applied: the engine's Edit tool is the only writer.
    return {"applied": False, "failureReason": "this client never applies edits"}
