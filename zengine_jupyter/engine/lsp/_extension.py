"""Language servers in a chat: one :class:`LspManager`, the LSP tool, errors after writes, /lsp.

Nothing starts when the chat opens. In an untrusted project the manager starts servers that
would run the project's code in their safe configuration or not at all, and ``/lsp`` says
which (``integrations/lsp/_untrusted.py``). The first LSP question about a file starts its server; a
write to a file whose server is not running starts it in the background and, once it is up,
opens the written files so that the next write is waited on (for at most ``WAIT``). A settings
reload stops only the language servers whose entry changed; a trust change starts over.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from zengine_jupyter.engine._extension import CommandResult, SessionExtension
from zengine_jupyter.engine.lsp._tool import LspTool
from zengine_jupyter.protocol import JsonRpcError, LspError

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.config import Settings
    from zengine_jupyter.engine._session import Session
    from zengine_jupyter.engine.tools import Tool, ToolOutput
    from zengine_jupyter.integrations.lsp import LspManager, LspServerEntry
    from zengine_jupyter.protocol import RecordedToolCall

__all__ = ["LspExtension", "lsp_entries"]


def lsp_entries(settings: Settings) -> tuple[LspServerEntry, ...]:
    """The effective ``[lsp.servers]`` (empty while the folder is untrusted: the settings
    layer withholds a project's servers) as the manager's entries."""
    from zengine_jupyter.integrations.lsp import LspServerEntry

    return tuple(
        LspServerEntry(
            name=name,
            command=server.command,
            args=tuple(server.args),
            file_types=tuple(server.file_types),
            initialization_options=dict(server.initialization_options) or None,
        )
        for name, server in settings.lsp.servers.items()
    )


class LspExtension(SessionExtension):
    """Registers the LSP tool and ``/lsp``; appends errors to Edit / Write / NotebookEdit.

    The manager (and the client code under it) is made on first use: a chat's first request
    does not wait for modules that only a language server needs (~90 ms of a fresh kernel's
    first turn)."""

    name = "lsp"

    def __init__(self, *, search_path: str | None = None) -> None:
        self.search_path = search_path
        self._manager: LspManager | None = None
        self._entries: tuple[LspServerEntry, ...] = ()
        self._trusted = True
        self._session: Session | None = None
        self._closed = False
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def manager(self) -> LspManager:
        if self._closed or self._session is None:
            raise LspError("the chat's language servers are closed", hint="open the chat again")
        if self._manager is None:
            self._manager = self._new_manager(self._session)
        return self._manager

    def _new_manager(self, session: Session) -> LspManager:
        from zengine_jupyter.integrations.lsp import LspManager, LspManagerOptions

        self._entries = lsp_entries(session.settings.settings)
        self._trusted = session.settings.trusted
        options = LspManagerOptions(
            session.root, self._entries, search_path=self.search_path, trusted=self._trusted
        )
        return LspManager(options)

    async def start(self, session: Session) -> None:
        self._session = session
        session.tools[LspTool.name] = LspTool(lambda: self.manager, lambda: session.gate)
        session.commands["lsp"] = self._status

    async def _status(self, session: Session, args: str) -> CommandResult:
        from zengine_jupyter.integrations.lsp import render_status

        return CommandResult(render_status(self.manager.status()))

    async def after_write(
        self, session: Session, call: RecordedToolCall, tool: Tool[Any], output: ToolOutput
    ) -> ToolOutput:
        if self._closed or output.is_error:
            return output
        from zengine_jupyter.integrations.lsp import diagnostics_after_write

        manager = self.manager
        paths = list(dict.fromkeys(p for p in output.changed_paths if p.is_file()))
        reports = await asyncio.gather(*(diagnostics_after_write(manager, p) for p in paths))
        for path, report in zip(paths, reports, strict=True):
            if report.outcome == "started":
                self._track(self._open_when_up(manager, path))
        found = [text for report in reports if (text := report.text())]
        if not found:
            return output
        return replace(output, content="\n\n".join([output.content, *found]))

    async def _open_when_up(self, manager: LspManager, path: Path) -> None:
        """After a background start: open ``path`` so the next write to it is waited on."""
        try:
            client = await manager.client_for(path)
            if client.published(path) is None:
                await client.sync(path)
        except (LspError, JsonRpcError):
            return  # the manager remembers why; /lsp and the next LSP call say so

    def _track(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_consume)

    async def reload(self, session: Session) -> None:
        """Trusting the folder (or revoking it) changes how every server may start: a new
        manager, started lazily. Edited ``[lsp.servers]`` stop only the servers whose entry
        changed (they start again on next use); the others keep running."""
        manager = self._manager
        if manager is None:  # closed, or not made yet: it reads the settings when it is
            return
        entries, trusted = lsp_entries(session.settings.settings), session.settings.trusted
        if entries == self._entries and trusted == self._trusted:
            return
        if trusted != self._trusted:
            self._manager = self._new_manager(session)
            await self._stop(manager)
            return
        self._entries = entries
        await manager.reconfigure(entries)  # the notice says "language server 'x' changed"

    async def _stop(self, manager: LspManager) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await manager.aclose()

    async def aclose(self) -> None:
        self._closed = True
        manager, self._manager = self._manager, None
        if manager is not None:
            await self._stop(manager)


def _consume(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()
