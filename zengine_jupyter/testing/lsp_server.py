"""A tiny, deliberately slow language server for tests, speaking LSP over stdio with our
own JSON-RPC module.

Run: ``python -m zengine_jupyter.testing.lsp_server [options]``. It reports an error for
every line containing ``ERROR`` and a warning for every line containing ``WARN``, after
``--diagnostics-delay`` seconds (``--change-delay``: after a change, so a file is analysed at
once when opened and slowly after each edit). ``--index-s`` keeps a work-done progress
token ("Indexing") open that long after ``initialized``; ``--partial-first-s`` answers an
opened file at once with no diagnostics, then with its real ones that much later (as a
basedpyright that has just started may: its checker's findings come in a second publish of
the same version); ``--init-delay`` delays the
``initialize`` reply; ``--freeze-s`` blocks the whole server (it stops reading) on each
change; ``--starts-file`` gets one line per process start; the
``fixture/crash`` request (or a SIGKILL) ends it abruptly. Hover answers the client's
``fixture.hover`` setting (asked with ``workspace/configuration``), else "fixture hover".
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

from zengine_jupyter.integrations.jsonrpc import JsonRpcConnection
from zengine_jupyter.integrations.lsp import LspServerEntry

__all__ = ["FixtureLanguageServer", "fixture_server_argv", "fixture_server_entry", "main"]


def fixture_server_argv(*options: str) -> list[str]:
    """The argv that starts this server with ``options``."""
    return [sys.executable, "-m", "zengine_jupyter.testing.lsp_server", *options]


def fixture_server_entry(
    *options: str, name: str = "fixture", file_types: tuple[str, ...] = (".fix",)
) -> LspServerEntry:
    """An ``[lsp.servers]`` entry that runs this server with ``options``."""
    command, *args = fixture_server_argv(*options)
    return LspServerEntry(name=name, command=command, args=tuple(args), file_types=file_types)


class FixtureLanguageServer:
    """The server's behaviour, over any :class:`JsonRpcConnection`."""

    def __init__(self, conn: JsonRpcConnection, args: argparse.Namespace) -> None:
        self.conn = conn
        self.args = args
        self.exit = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        conn.on_request("initialize", self._initialize)
        conn.on_request("shutdown", self._none)
        conn.on_request("textDocument/hover", self._hover)
        conn.on_request("fixture/crash", self._crash)
        conn.on_notification("initialized", lambda _p: self._spawn(self._index()))
        conn.on_notification("exit", lambda _p: self.exit.set())
        conn.on_notification("textDocument/didOpen", self._opened)
        conn.on_notification("textDocument/didChange", self._changed)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _none(self, _params: Any) -> None:
        return None

    async def _initialize(self, _params: Any) -> dict[str, Any]:
        await asyncio.sleep(self.args.init_delay)
        return {
            "capabilities": {"textDocumentSync": 1, "hoverProvider": True},
            "serverInfo": {"name": "zengine-fixture-lsp"},
        }

    async def _hover(self, _params: Any) -> dict[str, Any]:
        # asks the client back for its settings: a server-to-client request mid-request
        items = [{"section": "fixture.hover"}]
        configured = await self.conn.request("workspace/configuration", {"items": items})
        value = configured[0] if configured and isinstance(configured[0], str) else "fixture hover"
        return {"contents": {"kind": "plaintext", "value": value}}

    async def _crash(self, _params: Any) -> None:
        os._exit(3)

    async def _index(self) -> None:
        if self.args.index_s <= 0:
            return
        token = "fixture-indexing"
        await self.conn.request("window/workDoneProgress/create", {"token": token})
        await self.conn.notify(
            "$/progress", {"token": token, "value": {"kind": "begin", "title": "Indexing"}}
        )
        await asyncio.sleep(self.args.index_s)
        await self.conn.notify("$/progress", {"token": token, "value": {"kind": "end"}})

    def _opened(self, params: Any) -> None:
        doc = params["textDocument"]
        later = self.args.partial_first_s
        if later:  # nothing at once (an empty text has no findings); the real answer later
            self._spawn(self._publish(doc["uri"], doc["version"], "", 0.0))
        self._spawn(self._publish(doc["uri"], doc["version"], doc["text"], later))

    def _changed(self, params: Any) -> None:
        if self.args.freeze_s:  # stop reading stdin altogether, as a wedged server would
            time.sleep(self.args.freeze_s)
        doc = params["textDocument"]
        text = params["contentChanges"][-1]["text"]
        self._spawn(self._publish(doc["uri"], doc["version"], text, self.args.change_delay))

    async def _publish(self, uri: str, version: int, text: str, extra_delay: float) -> None:
        await asyncio.sleep(self.args.diagnostics_delay + extra_delay)
        diagnostics = []
        for number, line in enumerate(text.splitlines()):
            for word, severity in (("ERROR", 1), ("WARN", 2)):
                col = line.find(word)
                if col >= 0:
                    diagnostics.append({
                        "range": {"start": {"line": number, "character": col},
                                  "end": {"line": number, "character": col + len(word)}},
                        "severity": severity,
                        "message": f"fixture {word.lower()} on line {number + 1}",
                        "source": "fixture",
                    })  # fmt: skip
        await self.conn.notify(
            "textDocument/publishDiagnostics",
            {"uri": uri, "version": version, "diagnostics": diagnostics},
        )

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await self.conn.aclose()


async def _serve(args: argparse.Namespace) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout.buffer
    )
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    server = FixtureLanguageServer(JsonRpcConnection(reader, writer, name="client"), args)
    server.conn.start()
    closed = loop.create_task(server.conn.wait_closed())
    exited = loop.create_task(server.exit.wait())
    await asyncio.wait({closed, exited}, return_when=asyncio.FIRST_COMPLETED)
    closed.cancel()
    exited.cancel()
    await server.aclose()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="zengine-fixture-lsp")
    parser.add_argument("--diagnostics-delay", type=float, default=0.0)
    parser.add_argument("--change-delay", type=float, default=0.0)
    parser.add_argument("--freeze-s", type=float, default=0.0)
    parser.add_argument("--index-s", type=float, default=0.0)
    parser.add_argument("--init-delay", type=float, default=0.0)
    parser.add_argument("--partial-first-s", type=float, default=0.0)
    parser.add_argument("--starts-file", type=Path)
    args = parser.parse_args(argv)
    if args.starts_file is not None:
        with args.starts_file.open("a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
    asyncio.run(_serve(args))


if __name__ == "__main__":
    main()
