"""Rewind through the engine against the local provider server: files, conversation, both."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import pytest

from zengine_jupyter.engine import (
    FixedApprovals,
    Session,
    SessionOptions,
    TurnInProgressError,
    describe_rewind,
    rewind,
    rewind_points,
)
from zengine_jupyter.protocol import (
    REWIND_LIMITS,
    DocEdit,
    Rewound,
    TurnStarted,
    UsageRecord,
)
from zengine_jupyter.store import SessionStore, scan_file
from zengine_jupyter.testing import (
    ProviderServer,
    Reply,
    ScriptedToolCall,
    configured_provider,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    (root / "old.txt").write_text("old\n")
    return root


def call(name: str, **arguments: str) -> ScriptedToolCall:
    return ScriptedToolCall(name, dict(arguments))


def sent_text(server: ProviderServer) -> str:
    return json.dumps(server.requests[-1].json["messages"])


async def open_session(project: Path) -> Session:
    return await Session.open(SessionOptions(project=project, approvals=FixedApprovals(True)))


async def test_rewinding_both_restores_files_and_drops_later_messages_but_keeps_cost(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home) as server:
        server.add(
            Reply(tool_calls=(call("Read", path="a.txt"),)),
            Reply(text=("first answer",)),
            Reply(tool_calls=(
                call("Write", path="made.txt", content="made by Write\n"),
                call("Bash", command="printf 'two\\n' > a.txt && rm old.txt"
                                     " && mkdir -p out && echo n > out/new.txt"),
            )),
            Reply(text=("changed things",)),
            Reply(text=("third answer",)),
        )  # fmt: skip
        session = await open_session(project)
        events = session.subscribe()
        for prompt in ("first question", "change things", "third question"):
            outcome = await session.submit(prompt)
            assert outcome.status == "completed", outcome.reason
        assert (project / "a.txt").read_text() == "two\n"
        assert not (project / "old.txt").exists()
        cost_before = session.writer.state().cost_usd
        assert cost_before > 0

        points = await rewind_points(session)
        assert [p.prompt for p in points] == ["first question", "change things", "third question"]
        assert points[0].checkpoint_id is not None  # taken before turn 1's Read
        # turn 1 only read: the files were the same, so turn 2's snapshot is the same one
        assert points[1].checkpoint_id == points[0].checkpoint_id
        assert points[2].checkpoint_id is None  # no tool ran from there on

        result = await rewind(session, "2")

        # files: changed and deleted ones come back, created ones go (and their folder)
        assert (project / "a.txt").read_text() == "one\n"
        assert (project / "old.txt").read_text() == "old\n"
        assert not (project / "made.txt").exists()
        assert not (project / "out").exists()
        assert result.code is not None
        assert result.code.restored == ["a.txt", "old.txt"]
        assert result.code.removed == ["made.txt", "out/new.txt"]
        assert result.code.target == points[1].checkpoint_id
        # conversation: turn 2 and 3 left the chat; the cost did not
        assert result.conversation
        assert result.messages_removed == 5
        assert result.note == REWIND_LIMITS
        assert "installed packages" in result.note
        assert session.writer.state().cost_usd == pytest.approx(cost_before)

        server.add(Reply(text=("fresh start",)))
        outcome = await session.submit("new direction")
        assert outcome.status == "completed"
        sent = sent_text(server)
        assert "first question" in sent
        assert "first answer" in sent
        assert "new direction" in sent
        for gone in ("change things", "changed things", "third question", "third answer"):
            assert gone not in sent
        assert server.requests[-1].rejected is None
        await session.aclose()
        seen = [e async for e in events]
        rewound = [e for e in seen if isinstance(e, Rewound)]
        assert [e.result for e in rewound] == [result]
        # every view shows the engine's words from the event, the reply need not carry them
        assert rewound[0].text == describe_rewind(result)
        assert "  restored a.txt" in rewound[0].text.splitlines()
        assert rewound[0].warnings == []

        # every request's cost still counts: six equal requests, the rewound ones included
        log = scan_file(session.writer.log_path).records
        usages = [r for r in log if isinstance(r, UsageRecord)]
        assert len(usages) == len(server.requests) == 6
        snapshot = SessionStore().read(session.id)
        assert snapshot.state.cost_usd == pytest.approx(cost_before * 6 / 5)
        assert snapshot.meta.cost_usd == pytest.approx(cost_before * 6 / 5)
        prompts = [
            r.text for r in snapshot.state.transcript if r.kind == "message" and r.role == "user"
        ]
        assert prompts == ["first question", "new direction"]  # fmt: skip


async def test_code_and_conversation_alone_and_the_read_tracker(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home) as server:
        server.add(
            Reply(tool_calls=(call("Read", path="a.txt"),)),
            Reply(tool_calls=(call("Edit", path="a.txt", old_string="one", new_string="two"),)),
            Reply(text=("edited",)),
            Reply(text=("just talk",)),
        )  # fmt: skip
        session = await open_session(project)
        assert (await session.submit("edit a")).status == "completed"
        assert (await session.submit("chat")).status == "completed"
        assert (project / "a.txt").read_text() == "two\n"

        # files only, through the slash command: the conversation stays
        outcome = await session.submit("/rewind 1 code")
        assert "1 restored" in outcome.text
        assert REWIND_LIMITS in outcome.text
        assert (project / "a.txt").read_text() == "one\n"
        assert len(await rewind_points(session)) == 2
        # back to message 2 (files only): its files were the edited ones. No tool ran in turn
        # 2; the rewind's own safety snapshot stands for the files as they were then.
        again = await rewind(session, "2", code=True, conversation=False)
        assert again.code is not None
        assert again.code.restored == ["a.txt"]
        assert (project / "a.txt").read_text() == "two\n"

        # the conversation only: files stay, the agent must read again before editing
        (project / "a.txt").write_text("two\n")
        result = await rewind(session, "2", code=False, conversation=True)
        assert result.code is None
        assert result.messages_removed == 2
        assert (project / "a.txt").read_text() == "two\n"
        server.add(
            Reply(tool_calls=(call("Edit", path="a.txt", old_string="two", new_string="3"),)),
            Reply(text=("ok",)),
        )  # fmt: skip
        assert (await session.submit("edit again")).status == "completed"
        tool_result = server.requests[-1].json["messages"][-1]["content"][0]
        assert tool_result["type"] == "tool_result"
        assert "has not been read in this conversation" in json.dumps(tool_result)
        assert (project / "a.txt").read_text() == "two\n"
        assert "just talk" not in sent_text(server)
        assert "edited" in sent_text(server)

        listing = await session.submit("/rewind")
        assert "1. edit a" in listing.text
        assert "2. edit again" in listing.text
        bad = await session.submit("/rewind 9")
        assert "has no user message '9'" in bad.text
        await session.aclose()


async def test_rewind_is_refused_during_a_turn(project: Path, zengine_home: Path) -> None:
    async with configured_provider(zengine_home) as server:
        server.add(Reply(text=("hello",)), Reply(text=("a", "b", "c"), event_delay_s=0.3))
        session = await open_session(project)
        await session.submit("hi")
        events = session.subscribe()
        turn = asyncio.create_task(session.submit("slow one"))
        while not isinstance(await events.get(), TurnStarted):
            pass
        with pytest.raises(TurnInProgressError) as refused:
            await rewind(session, "1")
        assert "while a turn is running" in str(refused.value)
        with pytest.raises(TurnInProgressError):
            await session.submit("/rewind 1")
        session.interrupt()
        await turn
        assert len(await rewind_points(session)) == 2  # nothing was rewound
        await session.aclose()


class _OpenNotebooks:
    """The live-documents port of a page that has a notebook open: remembers each restore."""

    def __init__(self, opened: list[str]) -> None:
        self.opened = opened
        self.restored: list[list[str]] = []

    def state(self, path: Path) -> Literal["closed"]:
        return "closed"

    async def read(self, path: Path) -> dict[str, Any] | None:
        return None

    async def edit(self, path: Path, edit: DocEdit) -> dict[str, Any] | None:
        return None

    async def restore(self, turns: Sequence[str]) -> list[str]:
        self.restored.append(list(turns))
        return self.opened


async def test_a_code_rewind_puts_back_the_open_notebooks_the_rewound_turns_edited(
    project: Path, zengine_home: Path
) -> None:
    """Every view's rewind goes through ``rewind``: the frontend's port restores the open
    notebooks of the turns it drops, and the result and its words name them."""
    async with configured_provider(zengine_home) as server:
        server.add(
            Reply(tool_calls=(call("Write", path="one.txt", content="1\n"),)),
            Reply(text=("one",)),
            Reply(tool_calls=(call("Write", path="two.txt", content="2\n"),)),
            Reply(text=("two",)),
        )  # fmt: skip
        session = await open_session(project)
        live = _OpenNotebooks([str(project / "nb.ipynb")])
        session.ctx.live = live
        for prompt in ("first", "second"):
            assert (await session.submit(prompt)).status == "completed"
        turns = [p.turn_id for p in await rewind_points(session)]

        talk = await rewind(session, "2", code=False, conversation=True)
        assert live.restored == []  # the files stay: so do the open notebooks
        assert talk.open_notebooks == []
        done = await rewind(session, "1", code=True, conversation=False)
        await session.aclose()
    assert live.restored == [turns]  # both turns dropped, oldest first
    assert done.open_notebooks == [str(project / "nb.ipynb")]
    assert f"open notebooks put back in the page as they were: {project / 'nb.ipynb'}" in (
        describe_rewind(done)
    )
