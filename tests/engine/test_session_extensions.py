"""Slash commands and the extension hooks the integrations plug into."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from zengine_jupyter.engine import Session, SessionExtension, SessionOptions
from zengine_jupyter.engine.tools import Tool, ToolContext, ToolInput, ToolOutput
from zengine_jupyter.protocol import Notice
from zengine_jupyter.testing import (
    Reply,
    ScriptedToolCall,
    configured_provider,
)


class EchoInput(ToolInput):
    word: str = Field(description="what to echo")


class EchoTool(Tool[EchoInput]):
    name = "Echo"
    kind = "read"
    description = "Echo a word."
    Input = EchoInput

    async def run(self, args: EchoInput, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(args.word)


class Probe(SessionExtension):
    name = "probe"

    def __init__(self) -> None:
        self.stops = 0
        self.closed = False

    async def start(self, session: Session) -> None:
        session.tools["Echo"] = EchoTool()

    def reminder(self, session: Session) -> str | None:
        return "REMINDER-FROM-PROBE"

    async def after_tool(
        self, session: Session, call: Any, tool: Any, output: ToolOutput
    ) -> ToolOutput:
        return ToolOutput(output.content + " [checked]")

    async def at_stop(self, session: Session, outcome: Any) -> str | None:
        self.stops += 1
        return "Please also say bye." if self.stops == 1 else None

    async def aclose(self) -> None:
        self.closed = True


async def test_extension_hooks_and_commands(tmp_path: Path, zengine_home: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    probe = Probe()
    async with configured_provider(zengine_home) as server:
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Echo", {"word": "hi"}),)),
            Reply(text=("done",)),
            Reply(text=("bye",)),
        )
        session = await Session.open(SessionOptions(project=project, extensions=(lambda: probe,)))
        events = session.subscribe()
        outcome = await session.submit("echo")
        assert outcome.text == "bye"
        first = server.requests[0].json
        assert "REMINDER-FROM-PROBE" in str(first["system"])
        assert "Echo" in [t["name"] for t in first["tools"]]
        result = server.requests[1].json["messages"][-1]["content"][0]
        assert result["content"] in ("hi [checked]", [{"type": "text", "text": "hi [checked]"}])
        assert (
            server.requests[2].json["messages"][-1]["content"][-1]["text"] == "Please also say bye."
        )

        mode = await session.submit("/mode plan")
        assert mode.text == "mode: plan"
        assert session.gate.policy.mode == "plan"
        cost = await session.submit("/cost")
        assert cost.text.startswith("cost so far: $")
        unknown = await session.submit("/nonesuch please")  # answered here, never sent
        assert len(server.requests) == 3
        assert unknown.text.startswith("unknown command /nonesuch")
        await session.aclose()
    assert probe.closed
    notices = [e for e in [ev async for ev in events] if isinstance(e, Notice)]
    assert any(n.topic == "/mode" for n in notices)
    assert session.writer.state().mode == "plan"


class WriteWatcher(SessionExtension):
    """Only ``after_write``: sees the calls that changed files, and no other."""

    name = "write-watcher"

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def start(self, session: Session) -> None:
        session.tools["Echo"] = EchoTool()

    async def after_write(
        self, session: Session, call: Any, tool: Any, output: ToolOutput
    ) -> ToolOutput:
        self.seen.append(call.name)
        return ToolOutput(output.content + " [written]", changed_paths=output.changed_paths)


async def test_after_write_sees_only_the_calls_that_changed_files(
    tmp_path: Path, zengine_home: Path
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    watcher = WriteWatcher()
    write = project / "a.py"
    async with configured_provider(zengine_home) as server:
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Echo", {"word": "hi"}),)),
            Reply(tool_calls=(ScriptedToolCall("Write", {"path": str(write), "content": "x\n"}),)),
            Reply(text=("done",)),
        )
        session = await Session.open(
            SessionOptions(project=project, extensions=(lambda: watcher,), mode="accept_edits")
        )
        try:
            assert session.call_env("t").after_writes_only  # no extension adjusts every call
            assert (await session.submit("echo, then write")).text == "done"
        finally:
            await session.aclose()
    echoed = server.requests[1].json["messages"][-1]["content"][0]["content"]
    written = server.requests[2].json["messages"][-1]["content"][0]["content"]
    assert "hi" in str(echoed)
    assert "[written]" not in str(echoed)
    assert "[written]" in str(written)
    assert watcher.seen == ["Write"]
    assert write.read_text() == "x\n"
