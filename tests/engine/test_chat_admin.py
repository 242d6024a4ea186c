"""The chats list's engine side: rename (the /title path) and delete (to the trash, the
project's checkpoints kept), and the footer's options (models, modes, bypass off)."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.engine import (
    FixedApprovals,
    Session,
    SessionOptions,
    chat_options,
    delete_chat,
    rename_chat,
)
from zengine_jupyter.protocol import (
    ModeChangeRecord,
    SessionLockedError,
    SessionNotFoundError,
    StoreError,
    TitleRecord,
)
from zengine_jupyter.store import SessionStore, scan_file
from zengine_jupyter.testing import (
    DEFAULT_MODEL,
    Reply,
    ScriptedToolCall,
    configured_provider,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    return root


async def _open(project: Path) -> Session:
    return await Session.open(SessionOptions(project=project, approvals=FixedApprovals(True)))


async def test_delete_moves_the_log_to_the_trash_and_keeps_the_checkpoint_refs(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home) as server:
        edit = ScriptedToolCall("Write", {"path": "a.txt", "content": "two\n"})
        server.add(Reply(tool_calls=(edit,)), Reply(text=("done",)))
        session = await _open(project)
        assert (await session.submit("change a")).status == "completed"
        shadow = session.shadow
        assert shadow is not None
        taken = await shadow.list()
        assert taken, "the turn took no checkpoint"
        refs = await shadow.git("for-each-ref")
        sid = session.id
        with pytest.raises(SessionLockedError):  # open: the writer lock refuses
            await delete_chat(sid)
        await session.aclose()

        text = await delete_chat(sid)
        store = SessionStore()
        assert sid not in [m.id for m in store.list()]
        trashed = list((store.root / ".trash").iterdir())
        assert [p.name.split("--")[0] for p in trashed] == [sid]
        assert (trashed[0] / "log.jsonl").is_file()
        assert str(trashed[0]) in text
        assert "checkpoints stay" in text
        # the checkpoints are the project's: untouched, each still found by its id
        assert await shadow.git("for-each-ref") == refs
        for info in taken:
            assert (await shadow.get(info.id)).id == info.id
        with pytest.raises(SessionNotFoundError):
            await delete_chat(sid)


async def test_rename_open_and_closed_chats(project: Path, zengine_home: Path) -> None:
    async with configured_provider(zengine_home) as server:
        server.add(Reply(text=("hi",)))
        session = await _open(project)
        await session.submit("hello")
        sid = session.id
        events = session.subscribe()
        assert await rename_chat(sid, "  **Open title.** ", open_chat=session) == "Open title"
        notice = await events.get()
        assert notice is not None
        assert notice.kind == "notice"
        assert notice.topic == "title"
        await session.aclose()
        assert await rename_chat(sid, "Closed title") == "Closed title"
        store = SessionStore()
        assert [m.title for m in store.list() if m.id == sid] == ["Closed title"]
        titles = [r.title for r in scan_file(store.folder(sid) / "log.jsonl").records
                  if isinstance(r, TitleRecord)]  # fmt: skip
        assert titles == ["Open title", "Closed title"]
        with pytest.raises(StoreError, match="cannot be empty"):
            await rename_chat(sid, "  ")


async def test_options_list_the_catalog_models_and_bypass_only_when_allowed(
    project: Path, zengine_home: Path
) -> None:
    async with configured_provider(zengine_home) as server:
        before = await chat_options(project, None)
        assert (before.session_id, before.model, before.mode) == (None, DEFAULT_MODEL, "default")
        assert DEFAULT_MODEL in before.models
        assert len(before.models) > 1
        assert all(m.startswith("claude") for m in before.models)  # the chat's provider only
        assert before.modes == ["default", "accept_edits", "plan", "bypass"]
        assert before.provider.kind == "local"
        assert before.provider.provider == "127.0.0.1"
        assert server.requests == []  # the options never ask the model

        settings = zengine_home / "settings.toml"
        settings.write_text(settings.read_text() + "[permissions]\nallow_bypass = false\n")
        session = await _open(project)
        try:
            options = await chat_options(project, session)
            assert options.session_id == session.id
            assert options.modes == ["default", "accept_edits", "plan"]
            assert options.modes_note
            assert "allow_bypass" in options.modes_note
            refused = await session.commands["mode"](session, "bypass")
            assert "bypass is off" in refused.text
            assert session.mode == "default"
            chosen = await session.commands["mode"](session, "plan")
            assert chosen.text == "mode: plan"
            modes = [r.mode for r in session.writer.state().transcript
                     if isinstance(r, ModeChangeRecord)]  # fmt: skip
            assert modes == ["plan"]
        finally:
            await session.aclose()
