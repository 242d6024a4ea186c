"""Chat titles (issue 21.4): model.fast names a chat after its first turn, in the background;
a failure is quiet; ``/title`` renames. Against the local provider server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from zengine_jupyter.engine import TITLE_CHARS, Session, SessionOptions, clean_title
from zengine_jupyter.protocol import EngineError, Notice, TitleRecord
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import Reply, configured_provider


async def _title_of(session: Session) -> str:
    for _ in range(300):
        if (title := session.writer.state().title) is not None:
            return title
        await asyncio.sleep(0.02)
    raise AssertionError("no title was written")


def _meta_title(session: Session) -> str:
    meta = json.loads((session.writer.folder / "meta.json").read_text())
    return str(meta["title"])


async def test_the_first_turn_names_the_chat_without_waiting_for_the_title(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home) as server:
        server.title_replies.append(Reply.answer('"Raise the pipeline rate."', delay_s=1.0))
        session = await Session.open(SessionOptions(project=project))
        events = session.subscribe()
        server.add(Reply.answer("Done."), Reply.answer("Again."))
        outcome = await session.submit("Set RATE to 2 please")
        assert session.writer.state().title is None  # the turn ended before the title came
        assert _meta_title(session) == "Set RATE to 2 please"  # the default meanwhile
        title = await _title_of(session)
        await session.submit("and again")
        await session.aclose()
        notices = [e async for e in events if isinstance(e, Notice) and e.topic == "title"]
    assert outcome.status == "completed"
    assert title == "Raise the pipeline rate"
    assert _meta_title(session) == title
    assert [n.text for n in notices] == [title]
    assert len(server.title_requests) == 1  # named once, not at every turn
    assert "Set RATE to 2 please" in json.dumps(server.title_requests[0].json["messages"])
    assert [m.title for m in SessionStore().list()] == [title]


async def test_a_failing_title_model_leaves_the_default_quietly(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home) as server:  # no title scripted: a 400
        session = await Session.open(SessionOptions(project=project))
        events = session.subscribe()
        server.add(Reply.answer("Done."))
        outcome = await session.submit("Tidy the pipeline module")
        for _ in range(100):
            if server.title_requests:
                break
            await asyncio.sleep(0.02)
        await session.aclose()
        seen = [e async for e in events]
    assert outcome.status == "completed"
    assert len(server.title_requests) == 1
    assert not [e for e in seen if isinstance(e, EngineError)]
    assert not [e for e in seen if isinstance(e, Notice) and e.topic == "title"]
    assert session.writer.state().title is None
    assert _meta_title(session) == "Tidy the pipeline module"


async def test_slash_title_renames_the_chat_and_wins_over_a_title_being_made(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home) as server:
        server.title_replies.append(Reply.answer("Generated title", delay_s=0.5))
        session = await Session.open(SessionOptions(project=project))
        server.add(Reply.answer("Done."))
        await session.submit("Fix it")
        renamed = await session.submit("/title  My **pipeline** work ")
        shown = await session.submit("/title")
        await asyncio.sleep(0.8)  # the generated title arrives: it must not replace the user's
        await session.aclose()
    assert renamed.text == "title: My **pipeline** work"
    assert shown.text.startswith("title: My **pipeline** work")
    assert session.writer.state().title == "My **pipeline** work"
    assert _meta_title(session) == "My **pipeline** work"
    titles = [r for r in SessionStore().read(session.id).state.transcript
              if isinstance(r, TitleRecord)]  # fmt: skip
    assert [t.title for t in titles] == ["My **pipeline** work"]


def test_clean_title_keeps_one_short_line() -> None:
    assert clean_title('Title: "Fix the build."\nmore') == "Fix the build"
    assert clean_title("  **Data  cleanup**  ") == "Data cleanup"
    assert clean_title("\n\n") is None
    long = clean_title("word " * 40)
    assert long is not None
    assert len(long) == TITLE_CHARS
    assert long.endswith("…")
