"""The seams other parts plug into a Session through: its parts, the call env, the idle lock,
the permission mode."""

from __future__ import annotations

import dataclasses
import inspect
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.config import PERMISSION_MODES
from zengine_jupyter.engine import (
    FixedApprovals,
    Session,
    SessionOptions,
    SessionParts,
    TurnInProgressError,
)
from zengine_jupyter.protocol import ZengineError
from zengine_jupyter.testing import FakeModelClient, Reply

if TYPE_CHECKING:
    from pathlib import Path


async def open_fake(project: Path, *replies: Reply) -> Session:
    client = FakeModelClient(*replies)
    return await Session.open(
        SessionOptions(project=project, client=client, approvals=FixedApprovals(allow=True))
    )


def busy(session: Session) -> bool:
    return session.busy  # a call, so that mypy does not narrow the property between asserts


async def test_a_chat_held_idle_starts_no_turn(tmp_path: Path, zengine_home: Path) -> None:
    session = await open_fake(tmp_path, Reply(text=("hello",)))
    try:
        assert not busy(session)
        async with session.idle("rewind"):
            assert busy(session)
            with pytest.raises(TurnInProgressError):
                await session.submit("hi")
            with pytest.raises(TurnInProgressError) as nested:
                async with session.idle("compact"):
                    pass
            assert "cannot compact chat" in str(nested.value)
        assert not busy(session)
        assert (await session.submit("hi")).text == "hello"
    finally:
        await session.aclose()


async def test_every_call_env_comes_from_the_session(tmp_path: Path, zengine_home: Path) -> None:
    session = await open_fake(tmp_path)
    try:
        env = session.call_env("turn-1")
        assert (env.session_id, env.turn_id, env.root) == (session.id, "turn-1", session.root)
        assert env.gate is session.gate
        assert env.approvals is session.approvals
        assert env.journal is session.journal
        assert env.tools is session.tools
        assert env.ctx is session.ctx
        assert env.hooks is session.settings.settings.hooks
        assert env.trusted == session.settings.trusted
        assert env.after_tool == session.after_tool  # the built-ins' after_write
        assert env.after_writes_only  # no built-in adjusts a call that changed nothing
        only_read = {"Read": session.tools["Read"]}
        sub = session.call_env("turn-2", tools=only_read)
        assert sub.tools is only_read
        assert sub.gate is session.gate  # a subagent never gets a gate of its own
    finally:
        await session.aclose()


async def test_a_session_is_made_of_one_frozen_parts_object(
    tmp_path: Path, zengine_home: Path
) -> None:
    assert list(inspect.signature(Session).parameters) == ["parts"]
    session = await open_fake(tmp_path)
    try:
        fields = {f.name: getattr(session, f.name) for f in dataclasses.fields(SessionParts)
                  if f.name not in ("client_is_ours", "tools", "extensions")}  # fmt: skip
        parts = SessionParts(**fields, client_is_ours=False, tools={}, extensions=())
        with pytest.raises(dataclasses.FrozenInstanceError):
            parts.id = "another"  # type: ignore[misc]
        twin = Session(parts)
        twin.tools["Read"] = session.tools["Read"]
        assert parts.tools == {}  # the session's tools are its own dict
        assert twin.gate is session.gate
    finally:
        await session.aclose()


async def test_an_unknown_mode_is_refused_before_the_chat_opens(
    tmp_path: Path, zengine_home: Path
) -> None:
    """``%%agent --mode bogus`` is untyped: it must not become a gate in mode "bogus"."""
    with pytest.raises(ZengineError) as refused:
        await Session.open(SessionOptions(project=tmp_path, client=FakeModelClient(),
                                          mode="bogus"))  # type: ignore[arg-type]  # fmt: skip
    assert "choose from default, accept_edits, plan, bypass" in str(refused.value.hint)
    assert not list((zengine_home / "sessions").glob("*"))  # no chat was created
    for mode in PERMISSION_MODES:
        session = await Session.open(SessionOptions(project=tmp_path, client=FakeModelClient(),
                                                    mode=mode))  # fmt: skip
        assert session.mode == mode
        await session.aclose()
