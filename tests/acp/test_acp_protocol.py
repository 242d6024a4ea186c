"""``zengine acp`` driven as a subprocess by the ACP SDK's client side, against the local
provider test server: initialize, sessions, streamed turns, permissions, cancel, load, modes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import tomllib
from typing import TYPE_CHECKING, Any, cast

import pytest
from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AllowedOutcome,
    AvailableCommandsUpdate,
    HttpHeader,
    HttpMcpServer,
    ImageContentBlock,
    McpServerStdio,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
    UserMessageChunk,
)

from zengine_jupyter.config import TrustStore
from zengine_jupyter.testing import DEFAULT_MODEL, Reply, ScriptedToolCall, configured_provider
from zengine_jupyter.testing.cli import ZENGINE, run_cli
from zengine_jupyter.testing.mcp_server import fixture_argv, running_http_fixture

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from acp import Client
    from acp.client.connection import ClientSideConnection


pytestmark = pytest.mark.slow


class RecordingClient:
    """An ACP client: keeps every update, answers permission questions from a script."""

    def __init__(self) -> None:
        self.updates: list[Any] = []
        self.answers: list[str | None] = []
        """Option ids to pick, in order; None: the question is left open until cancelled."""
        self.asked: list[Any] = []
        self.asked_event = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **_: Any
    ) -> RequestPermissionResponse:
        self.asked.append((tool_call, options))
        self.asked_event.set()
        choice = self.answers.pop(0) if self.answers else None
        while choice is None:
            await asyncio.Event().wait()  # the agent's cancel ends this request
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=choice)
        )

    def of(self, kind: type) -> list[Any]:
        return [u for u in self.updates if isinstance(u, kind)]

    def text(self) -> str:
        return "".join(u.content.text for u in self.of(AgentMessageChunk))


@contextlib.asynccontextmanager
async def acp_agent(
    client: RecordingClient, cwd: Path
) -> AsyncIterator[tuple[ClientSideConnection, Any]]:
    async with spawn_agent_process(
        cast("Client", client), ZENGINE, "acp", env=dict(os.environ), cwd=cwd
    ) as (
        conn,
        proc,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        yield conn, proc


async def _ready(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "notes.txt").write_text("draft\nsecond\n")
    return project


async def test_initialize_advertises_what_zengine_does(tmp_path: Path, zengine_home: Path) -> None:
    project = await _ready(tmp_path)
    client = RecordingClient()
    async with (
        configured_provider(zengine_home),
        spawn_agent_process(
            cast("Client", client), ZENGINE, "acp", env=dict(os.environ), cwd=project
        ) as (
            conn,
            _proc,
        ),
    ):
        init = await conn.initialize(protocol_version=PROTOCOL_VERSION)
        caps = init.agent_capabilities
        assert init.protocol_version == 1
        assert caps is not None
        assert caps.load_session is True
        assert caps.prompt_capabilities is not None
        assert caps.prompt_capabilities.embedded_context is True
        assert caps.prompt_capabilities.image is True
        assert caps.mcp_capabilities is not None
        assert caps.mcp_capabilities.http is True
        assert init.agent_info is not None
        assert init.agent_info.name == "zengine"
        assert [m.id for m in init.auth_methods or []] == ["zengine-provider"]
        await conn.authenticate(method_id="zengine-provider")  # a provider is configured
        with pytest.raises(RequestError, match="unknown auth method"):
            await conn.authenticate(method_id="nope")


async def test_prompt_streams_text_tool_calls_with_diff_and_asks(
    tmp_path: Path, zengine_home: Path
) -> None:
    project = await _ready(tmp_path)
    client = RecordingClient()
    edit = {"path": "notes.txt", "old_string": "draft", "new_string": "final"}
    async with configured_provider(zengine_home) as server, acp_agent(client, project) as (conn, _):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        assert session.modes is not None
        assert session.modes.current_mode_id == "default"
        assert [m.id for m in session.modes.available_modes] == [
            "default", "accept_edits", "plan", "bypass"]  # fmt: skip
        # SDK 0.12 wraps each option in a root model, 0.11 (jupyter-ai's pin) does not
        unwrapped = [getattr(o, "root", o) for o in session.config_options or []]
        options = {option.id: option for option in unwrapped}
        assert set(options) == {"mode", "model"}
        assert options["model"].current_value == DEFAULT_MODEL

        # allowed once: the edit runs, its diff is in the tool call's content
        client.answers = ["allow_once"]
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Read", {"path": "notes.txt"}),)),
            Reply(text=("Editing.",), tool_calls=(ScriptedToolCall("Edit", edit),)),
            Reply(text=("Done: the notes are final.",)),
        )
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("finish")])
        assert answer.stop_reason == "end_turn"
        assert client.text() == "Editing.Done: the notes are final."
        assert (project / "notes.txt").read_text() == "final\nsecond\n"
        read, start = client.of(ToolCallStart)[:2]
        assert read.kind == "read"
        assert read.status == "pending"
        assert start.kind == "edit"
        assert start.status == "pending"
        assert start.locations
        assert start.locations[0].path == str(project / "notes.txt")
        view, options = client.asked[0]
        assert [o.kind for o in options] == [
            "allow_once", "allow_always", "reject_once", "reject_always"]  # fmt: skip
        assert view.content
        assert view.content[0].type == "diff"
        done = [u for u in client.of(ToolCallProgress) if u.status == "completed"]
        diff = done[-1].content[0]
        assert diff.type == "diff"
        assert diff.path == str(project / "notes.txt")
        assert "draft" in (diff.old_text or "")
        assert "final" in diff.new_text
        assert client.of(UsageUpdate), "usage is reported after the turn"
        assert any(isinstance(u, AvailableCommandsUpdate) for u in client.updates)

        # rejected always: nothing changes, a deny rule is saved, the model hears it
        client.answers = ["reject_always"]
        bash = {"command": "rm notes.txt"}
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Bash", bash),)),
            Reply(text=("Left it.",)),
        )
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("clean")])
        assert answer.stop_reason == "end_turn"
        assert (project / "notes.txt").exists()
        local = tomllib.loads((project / ".z-engine" / "settings.local.toml").read_text())
        assert [r for r in local["permissions"]["deny"] if r.startswith("Bash(rm")], local
        failed = [u for u in client.of(ToolCallProgress) if u.status == "failed"]
        assert failed, "the denied call is shown as failed"
        result = server.requests[-1].json["messages"][-1]["content"][0]
        assert result["is_error"] is True
        assert "denied" in str(result["content"])


async def test_cancel_mid_stream_and_load_replays_the_chat(
    tmp_path: Path, zengine_home: Path
) -> None:
    project = await _ready(tmp_path)
    client = RecordingClient()
    async with configured_provider(zengine_home) as server, acp_agent(client, project) as (conn, _):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        sid = session.session_id
        server.add(Reply(text=("A first answer.",)))
        await conn.prompt(session_id=sid, prompt=[text_block("hello")])
        # a slow stream: cancel while it is still arriving
        server.add(Reply(text=("slow ", "words ", "keep ", "coming"), event_delay_s=1.0))
        turn = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("go on")]))
        await _until(lambda: len(server.requests) == 2)
        await asyncio.sleep(0.5)
        await conn.cancel(session_id=sid)
        answer = await asyncio.wait_for(turn, 30)
        assert answer.stop_reason == "cancelled"

        listed = await conn.list_sessions(cwd=str(project))
        assert [s.session_id for s in listed.sessions] == [sid]

    # a new connection (a restarted editor) loads the chat from our log
    later = RecordingClient()
    async with configured_provider(zengine_home), acp_agent(later, project) as (conn, _):
        await conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[])
        said = [u.content.text for u in later.of(UserMessageChunk)]
        assert said[:2] == ["hello", "go on"]
        assert "A first answer." in later.text()


async def test_plan_mode_refuses_an_edit_and_a_waiting_question_ends_on_cancel(
    tmp_path: Path, zengine_home: Path
) -> None:
    project = await _ready(tmp_path)
    client = RecordingClient()
    write = {"path": "notes.txt", "content": "gone\n"}
    async with configured_provider(zengine_home) as server, acp_agent(client, project) as (conn, _):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        sid = session.session_id
        await conn.set_session_mode(session_id=sid, mode_id="plan")
        with pytest.raises(RequestError, match="unknown mode"):
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
        plan = (
            "Plan only:\n\n1. Read **notes.txt**\n   - both lines\n2. Replace `draft`\n\nThen ask."
        )
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Write", write),)),
            Reply(text=(plan,)),
        )
        answer = await conn.prompt(session_id=sid, prompt=[text_block("rewrite")])
        assert answer.stop_reason == "end_turn"
        assert (project / "notes.txt").read_text() == "draft\nsecond\n"
        assert not client.asked, "plan mode refuses without asking"
        # the plan-mode answer's steps are the client's plan (a checklist), all pending
        (checklist,) = client.of(AgentPlanUpdate)
        assert [(e.content, e.status) for e in checklist.entries] == [
            ("Read notes.txt", "pending"), ("Replace draft", "pending")
        ]  # fmt: skip

        # back to default: a question nobody answers ends with the cancel, as a deny
        await conn.set_session_mode(session_id=sid, mode_id="default")
        client.answers = [None]
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Write", write),)),
            Reply(text=("Never mind.",)),
        )
        turn = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("again")]))
        await asyncio.wait_for(client.asked_event.wait(), 30)
        await conn.cancel(session_id=sid)
        answer = await asyncio.wait_for(turn, 30)
        assert answer.stop_reason == "cancelled"
        assert (project / "notes.txt").read_text() == "draft\nsecond\n"


async def _until(check: Any, limit_s: float = 30) -> None:
    async with asyncio.timeout(limit_s):
        while not check():
            await asyncio.sleep(0.02)


async def test_client_mcp_servers_join_the_chat_with_their_headers(
    tmp_path: Path, zengine_home: Path
) -> None:
    """jupyter-ai hands its notebook tools as an HTTP MCP server with chat headers; Zed hands
    stdio servers: both become the chat's servers, headers forwarded."""
    project = await _ready(tmp_path)
    client = RecordingClient()
    argv = fixture_argv()
    async with (
        running_http_fixture() as http,
        configured_provider(zengine_home, "[mcp]\nstartup_wait = 90\n") as server,
        acp_agent(client, project) as (conn, _),
    ):
        session = await conn.new_session(cwd=str(project), mcp_servers=[
            HttpMcpServer(type="http", name="jai", url=http.url,
                          headers=[HttpHeader(name="X-Jupyter-Chat-Id", value="chat-7")]),
            McpServerStdio(name="side", command=argv[0], args=argv[1:], env=[]),
        ])  # fmt: skip
        client.answers = ["allow_once", "allow_once"]
        server.add(
            Reply(tool_calls=(
                ScriptedToolCall("mcp__jai__http_header", {"header": "X-Jupyter-Chat-Id"}),
                ScriptedToolCall("mcp__side__echo", {"text": "from stdio"}),
            )),
            Reply(text=("Both answered.",)),
        )  # fmt: skip
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("use them")])
        assert answer.stop_reason == "end_turn"
        names = {tool["name"] for tool in server.requests[0].json["tools"]}
        assert {"mcp__jai__http_header", "mcp__side__echo"} <= names
        results = server.requests[1].json["messages"][-1]["content"]
        assert [r.get("is_error", False) for r in results] == [False, False], results
        assert "chat-7" in str(results[0]["content"])
        assert "from stdio" in str(results[1]["content"])


async def test_an_untrusted_project_asks_for_trust_through_the_client(
    tmp_path: Path, zengine_home: Path
) -> None:
    """A project's own MCP server is withheld until trust: the client is asked, and "trust"
    trusts the folder as `zengine trust` would."""
    project = await _ready(tmp_path)
    (project / ".z-engine").mkdir()
    (project / ".z-engine" / "settings.toml").write_text('[mcp.servers.own]\ncommand = "x"\n')
    client = RecordingClient()
    client.answers = ["trust"]
    async with configured_provider(zengine_home), acp_agent(client, project) as (conn, _):
        await conn.new_session(cwd=str(project), mcp_servers=[])
        await asyncio.wait_for(client.asked_event.wait(), 60)
        view, options = client.asked[0]
        assert view.title.startswith(f"Trust {project}?")
        assert "mcp.servers.own" in view.title
        assert [o.option_id for o in options] == ["trust", "not_now"]
        await _until(lambda: TrustStore().is_trusted(project))


async def test_an_acp_chat_is_an_ordinary_chat_shown_and_rewound_by_the_cli(
    tmp_path: Path, zengine_home: Path
) -> None:
    """What the engine writes for an ACP session is a chat like any other: `zengine sessions
    show` reads its log, and `zengine rewind` puts the file back."""
    project = await _ready(tmp_path)
    client = RecordingClient()
    write = {"path": "notes.txt", "content": "rewritten\n"}
    async with configured_provider(zengine_home) as server, acp_agent(client, project) as (conn, _):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        sid = session.session_id
        await conn.set_session_mode(session_id=sid, mode_id="accept_edits")
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Read", {"path": "notes.txt"}),)),
            Reply(tool_calls=(ScriptedToolCall("Write", write),)),
            Reply(text=("Rewritten.",)),
        )
        answer = await conn.prompt(session_id=sid, prompt=[text_block("rewrite the notes")])
        assert answer.stop_reason == "end_turn"
    assert (project / "notes.txt").read_text() == "rewritten\n"
    code, out, err = await run_cli("sessions", "show", sid, cwd=project)
    assert code == 0, err
    assert "rewrite the notes" in out
    assert "Rewritten." in out
    code, out, err = await run_cli("rewind", sid, "--to", "1", cwd=project)
    assert code == 0, err
    assert (project / "notes.txt").read_text() == "draft\nsecond\n"


# a 1x1 transparent PNG
_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)


async def test_an_image_in_the_prompt_reaches_the_model_and_a_bad_one_is_named(
    tmp_path: Path, zengine_home: Path
) -> None:
    """A prompt's image block is an image in the user's message to the model (after the
    text), kept by hash in the chat folder, so a resumed chat sends it again; an image that
    is not valid base64 is named in the text, never sent."""
    project = await _ready(tmp_path)
    client = RecordingClient()
    picture = ImageContentBlock(type="image", data=_PNG, mime_type="image/png")
    broken = ImageContentBlock(type="image", data="not*base64", mime_type="image/gif")
    async with configured_provider(zengine_home) as server, acp_agent(client, project) as (conn, _):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        sid = session.session_id
        server.add(Reply(text=("A small square.",)), Reply(text=("Still a square.",)))
        await conn.prompt(session_id=sid, prompt=[text_block("what is this?"), picture, broken])
        first = server.requests[-1].json["messages"][-1]
        assert first["role"] == "user"
        kinds = [block["type"] for block in first["content"]]
        assert kinds == ["text", "image"], first["content"]
        assert first["content"][1]["source"] == {
            "type": "base64", "media_type": "image/png", "data": _PNG
        }  # fmt: skip
        assert "what is this?" in first["content"][0]["text"]
        assert (
            "an attached image was left out: its data is not valid base64"
            in (first["content"][0]["text"])
        )
        await conn.prompt(session_id=sid, prompt=[text_block("and now?")])
        again = server.requests[-1].json["messages"][0]  # the first message, sent again
        assert [block["type"] for block in again["content"]] == ["text", "image"]
    stored = list((zengine_home / "sessions" / sid / "artifacts" / "images").glob("*.png"))
    assert len(stored) == 1


@pytest.mark.parametrize("signals", [("SIGTERM",), ("SIGINT", "SIGTERM")], ids=["term", "int+term"])
async def test_a_chat_never_used_is_discarded_when_the_client_stops_the_agent(
    tmp_path: Path, zengine_home: Path, signals: tuple[str, ...]
) -> None:
    """jupyter-ai stops its agent with SIGINT and SIGTERM at once (its chat moved to another
    panel): the chat the agent opened and nobody used must still be discarded, not left in the
    chat list as an empty "Untitled chat"."""
    import signal

    project = await _ready(tmp_path)
    async with (
        configured_provider(zengine_home),
        acp_agent(RecordingClient(), project) as (
            conn,
            proc,
        ),
    ):
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        chats = zengine_home / "sessions"
        assert [p.name for p in chats.iterdir() if p.is_dir()] == [session.session_id]
        for name in signals:
            proc.send_signal(getattr(signal, name))
        assert await asyncio.wait_for(proc.wait(), 30) is not None
    assert [p.name for p in chats.iterdir() if p.is_dir()] == []
