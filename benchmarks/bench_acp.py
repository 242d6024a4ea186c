"""A turn through ACP vs the same turn through ``zengine run`` (issue 24, acceptance 4).

Both are whole runs of a fresh process against the local provider server: ``zengine acp``
driven by the SDK's client (spawn, initialize, ``session/new``, one ``session/prompt`` answered
"done", exit) and ``zengine run "say done"`` (spawn, one turn, exit). The ratio is what the
protocol adds to a turn. No limit: the issue asks for the figure.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any, cast

from benchmarks._harness import Benchmark
from zengine_jupyter.testing import Reply, provider_in_thread, provider_settings
from zengine_jupyter.testing.cli import ZENGINE


class _Quiet:
    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        del session_id, update


class _Rig:
    def __init__(self) -> None:
        self.stack = contextlib.ExitStack()
        self.tmp = Path(self.stack.enter_context(tempfile.TemporaryDirectory()))
        self.server = self.stack.enter_context(provider_in_thread())
        home = self.tmp / "home"
        home.mkdir()
        (home / "settings.toml").write_text(provider_settings(self.server.base_url))
        self.project = self.tmp / "project"
        self.project.mkdir()
        (self.project / "notes.txt").write_text("draft\n")
        self.env = {**os.environ, "ZENGINE_HOME": str(home), "ZENGINE_CATALOG_URL": "off",
                    "ANTHROPIC_API_KEY": "bench-key"}  # fmt: skip
        atexit.register(self.stack.close)

    def acp_turn(self) -> None:
        from acp import PROTOCOL_VERSION, Client, spawn_agent_process, text_block

        async def turn() -> None:
            client = cast("Client", _Quiet())
            async with spawn_agent_process(
                client, ZENGINE, "acp", env=self.env, cwd=self.project
            ) as (conn, _proc):
                await conn.initialize(protocol_version=PROTOCOL_VERSION)
                session = await conn.new_session(cwd=str(self.project), mcp_servers=[])
                self.server.add(Reply(text=("done",)))
                await conn.prompt(session_id=session.session_id, prompt=[text_block("say done")])

        asyncio.run(turn())

    def run_turn(self) -> None:
        self.server.add(Reply(text=("done",)))
        subprocess.run([ZENGINE, "run", "say done"], cwd=self.project, env=self.env,
                       check=True, capture_output=True, timeout=120)  # fmt: skip


_rig: list[_Rig] = []


def _get() -> _Rig:
    if not _rig:
        _rig.append(_Rig())
    return _rig[0]


def benchmarks() -> list[Benchmark]:
    return [
        Benchmark(
            "a turn through zengine acp (spawn, initialize, session/new, prompt) vs zengine run",
            lambda: _get().acp_turn(),
            lambda: _get().run_turn(),
            repeat=5,
        )
    ]
