"""Retention runs in the background of a chat and says what it did; the notice names sizes."""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime
from pathlib import Path

from zengine_jupyter.config import data_dir
from zengine_jupyter.engine import Session, SessionOptions, Subscription, gc_notice
from zengine_jupyter.host.checkpoint import ShadowRepository
from zengine_jupyter.protocol import CheckpointGc, CheckpointInfo, Notice
from zengine_jupyter.testing import configured_provider

DAY = 86_400
MIB = 1024 * 1024


async def old_snapshot(shadow: ShadowRepository, days: int) -> None:
    saved = shadow._env
    date = f"{int(datetime.now(UTC).timestamp()) - days * DAY} +0000"
    shadow._env = {**saved, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    try:
        assert isinstance(await shadow.snapshot(f"{days} days ago"), CheckpointInfo)
    finally:
        shadow._env = saved


async def _checkpoints_notice(events: Subscription, timeout_s: float) -> Notice:
    """The first notice about checkpoints among ``events``."""
    async with asyncio.timeout(timeout_s):
        while True:
            event = await events.get()
            if isinstance(event, Notice) and event.topic == "checkpoints":
                return event


async def test_a_chat_applies_the_age_limit_when_it_opens(
    tmp_path: Path, zengine_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    shadow = ShadowRepository(project, data_dir())
    for days in (9, 5, 0):
        (project / "f.txt").write_text(f"{days}\n")
        await old_snapshot(shadow, days)
    (zengine_home / "settings.toml").write_text("[checkpoints]\nmax_age_days = 2\n")

    session = await Session.open(SessionOptions(project=project))
    notice = await _checkpoints_notice(session.subscribe(), timeout_s=30)
    await session.aclose()
    assert "removed 2 checkpoints" in notice.text
    assert "older than 2 days (checkpoints.max_age_days)" in notice.text
    assert [c.message for c in await shadow.list()] == ["0 days ago"]


def test_the_notice_names_the_size_when_the_budget_was_hit() -> None:
    report = CheckpointGc(
        project="/p", kept=4, removed=6, size_before=2600 * MIB, size_after=900 * MIB,
        budget=2048 * MIB, max_age_days=30, over_budget=True,
    )  # fmt: skip
    text = gc_notice(report)
    assert text is not None
    assert "took 2.5 GB, over the 2.0 GB budget (checkpoints.max_size_mb)" in text
    assert "removed the 6 oldest; 4 kept, 900.0 MB now" in text

    stuck = report.model_copy(update={"still_over_budget": True, "kept": 1, "removed": 0,
                                      "size_after": 2300 * MIB})  # fmt: skip
    assert "the newest snapshot alone needs that much" in (gc_notice(stuck) or "")
    assert "2.2 GB" in (gc_notice(stuck) or "")

    quiet = report.model_copy(update={"over_budget": False, "removed": 0})
    assert gc_notice(quiet) is None


async def test_a_turn_over_the_size_budget_gets_a_notice_naming_the_size(
    tmp_path: Path, zengine_home: Path
) -> None:
    from zengine_jupyter.testing import Reply, ScriptedToolCall

    project = tmp_path / "proj"
    project.mkdir()
    for i in range(3):  # 18 MiB that git cannot compress, under the 8 MiB per-file limit
        (project / f"sample{i}.bin").write_bytes(os.urandom(6 * MIB))
    async with configured_provider(zengine_home, "[checkpoints]\nmax_size_mb = 16\n") as server:
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Glob", {"pattern": "*.bin"}),)),
            Reply(text=("three samples",)),
        )
        session = await Session.open(SessionOptions(project=project))
        events = session.subscribe()
        assert (await session.submit("what samples are there?")).status == "completed"
        notice = await _checkpoints_notice(events, timeout_s=60)
        await session.aclose()
    assert "over the 16.0 MB budget (checkpoints.max_size_mb)" in notice.text
    assert " MB, over" in notice.text
    assert "the newest snapshot alone needs that much" in notice.text
    assert len(await ShadowRepository(project, data_dir()).list()) == 1
