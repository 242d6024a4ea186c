"""After-write diagnostics latency through the engine vs a bare JSON-RPC client, both against
basedpyright on a copy of the fixture project.

Each sample puts a new error into ``main.py`` and times until the error is reported. Ours: a
real chat (``Session.open``: settings, gate, every registered extension) runs an Edit call the
way a turn does (``run_call``: the gate, the Edit tool, the extensions' ``after_tool`` with
the language-server errors, the journal), timed until its result holds the error. The baseline
is a minimal hand-written Content-Length client that sends the same content as a didChange and
waits for the matching ``publishDiagnostics``. Two servers, one per side, each on its own copy
of the project, interleaved by the harness.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._harness import Benchmark

_FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "lsp_project"


def _variant(n: int, original: str) -> str:
    return original + f"\nvalue_{n}: int = 'text {n}'\n"


class _BareClient:
    """The least a client needs: framing, replies to the server's requests, one didChange."""

    def __init__(self, proc: asyncio.subprocess.Process, root: Path) -> None:
        self.proc = proc
        self.root = root
        self.ids = itertools.count(1)
        self.replies: dict[int, asyncio.Future[Any]] = {}
        self.published: dict[tuple[str, int], asyncio.Future[list[Any]]] = {}
        self.reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def start(cls, program: str, root: Path) -> _BareClient:
        proc = await asyncio.create_subprocess_exec(
            program, "--stdio", cwd=root, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        return cls(proc, root)

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def request(self, method: str, params: Any) -> Any:
        request_id = next(self.ids)
        future = self.replies[request_id] = asyncio.get_running_loop().create_future()
        self._send({"id": request_id, "method": method, "params": params})
        try:
            return await future
        finally:
            self.replies.pop(request_id, None)

    async def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        while True:
            length = 0
            while line := (await stdout.readline()).strip():
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if not length:
                return
            message = json.loads(await stdout.readexactly(length))
            if "method" in message and "id" in message:
                items = (message.get("params") or {}).get("items") or []
                result = (
                    [None] * len(items) if message["method"] == "workspace/configuration" else None
                )
                self._send({"id": message["id"], "result": result})
            elif message.get("method") == "textDocument/publishDiagnostics":
                params = message["params"]
                future = self.published.get((params["uri"], params.get("version") or 0))
                if future is not None and not future.done():
                    future.set_result(params["diagnostics"])
            elif "id" in message and message["id"] in self.replies:
                self.replies[message["id"]].set_result(message.get("result"))

    async def changed(self, uri: str, version: int, text: str) -> list[Any]:
        future: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self.published[(uri, version)] = future
        document = {"uri": uri, "version": version}
        self._send({
            "method": "textDocument/didChange",
            "params": {"textDocument": document, "contentChanges": [{"text": text}]},
        })  # fmt: skip
        return await future

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(2):
                await self.request("shutdown", None)
            self._send({"method": "exit"})
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        await self.proc.wait()
        self.reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.reader


class _Bench:
    def __init__(self) -> None:
        self.runner = asyncio.Runner()
        self.tmp = Path(tempfile.mkdtemp(prefix="zengine-bench-lsp-"))
        self.count = itertools.count(1)
        self.last = 0
        self.runner.run(self._setup())
        atexit.register(self.close)

    async def _setup(self) -> None:
        from zengine_jupyter.integrations.lsp import default_search_path

        program = shutil.which("basedpyright-langserver", path=default_search_path())
        if program is None:
            raise SystemExit("basedpyright is not installed: pip install basedpyright")
        ours_root = self.tmp / "ours"
        bare_root = self.tmp / "bare"
        shutil.copytree(_FIXTURE, ours_root)
        shutil.copytree(_FIXTURE, bare_root)
        self.original = (bare_root / "main.py").read_text()
        (ours_root / "main.py").write_text(_variant(0, self.original))
        await self._open_chat(ours_root)
        # the baseline: initialize, open, wait for the first publish
        self.bare = await _BareClient.start(program, bare_root)
        uri = (bare_root / "main.py").resolve().as_uri()
        self.bare_uri, self.bare_version = uri, 1
        await self.bare.request("initialize", {
            "processId": None, "rootUri": bare_root.resolve().as_uri(),
            "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}}},
        })  # fmt: skip
        self.bare._send({"method": "initialized", "params": {}})
        first = asyncio.get_running_loop().create_future()
        self.bare.published[(uri, 1)] = first
        self.bare._send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": self.original}}})  # fmt: skip
        async with asyncio.timeout(30):
            await first

    async def _open_chat(self, root: Path) -> None:
        """A chat on ``root`` whose model never answers (the calls are run directly); the
        LSP tool's diagnostics start basedpyright and open main.py, as an agent would."""
        from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
        from zengine_jupyter.engine._calls import CallEnv
        from zengine_jupyter.testing import FakeModelClient

        home = self.tmp / "home"
        home.mkdir()
        os.environ["ZENGINE_HOME"] = str(home)
        self.session = session = await Session.open(SessionOptions(
            project=root, approvals=FixedApprovals(allow=True), client=FakeModelClient(),
            mode="accept_edits"))  # fmt: skip
        self.env = CallEnv(
            session.id, "bench-turn", session.root, session.journal, session.gate,
            session.approvals, session.tools, session.ctx, session.settings.settings.hooks,
            session.settings.trusted, session.after_tool,
        )  # fmt: skip
        seen = await self._call("LSP", operation="diagnostics", path="main.py")
        assert "1 diagnostic(s)" in seen, seen
        await self._call("Read", path="main.py")

    async def _call(self, name: str, **arguments: Any) -> str:
        from zengine_jupyter.engine._calls import run_call
        from zengine_jupyter.protocol._records import RecordedToolCall, new_id

        call = RecordedToolCall(id=new_id(), name=name, input=arguments)
        record, _output = await run_call(self.env, call)
        assert not record.is_error, record.output
        return record.output

    async def _ours(self) -> float:
        n = next(self.count)
        old, new = (f"value_{k}: int = 'text {k}'" for k in (self.last, n))
        self.last = n
        start = time.perf_counter()
        output = await self._call("Edit", path="main.py", old_string=old, new_string=new)
        elapsed = time.perf_counter() - start
        assert "basedpyright reports 1 error(s) in main.py" in output, output
        return elapsed

    async def _baseline(self) -> float:
        text = _variant(next(self.count), self.original)
        self.bare_version += 1
        start = time.perf_counter()
        diagnostics = await self.bare.changed(self.bare_uri, self.bare_version, text)
        elapsed = time.perf_counter() - start
        assert any(d.get("severity") == 1 for d in diagnostics)
        return elapsed

    def ours(self) -> float:
        return self.runner.run(self._ours())

    def baseline(self) -> float:
        return self.runner.run(self._baseline())

    def close(self) -> None:
        atexit.unregister(self.close)

        async def stop() -> None:
            await self.session.aclose()
            await self.bare.aclose()

        with contextlib.suppress(Exception):
            self.runner.run(stop())
        self.runner.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


_STATE: dict[str, _Bench] = {}


def _bench() -> _Bench:
    if "bench" not in _STATE:
        _STATE["bench"] = _Bench()
    return _STATE["bench"]


def benchmarks() -> list[Benchmark]:
    return [
        Benchmark(
            "after-write diagnostics (basedpyright): an engine Edit call vs bare JSON-RPC client",
            ours=lambda: _bench().ours(),
            baseline=lambda: _bench().baseline(),
            repeat=9,
            max_ratio=1.1,
        )
    ]
