"""Checkpoint retention against real git: age and size budget, ids in logs stay meaningful."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from zengine_jupyter.host.checkpoint import (
    Retention,
    ShadowRepository,
    collect_garbage,
    needs_collection,
    repository_size,
    restore_code,
)
from zengine_jupyter.protocol import CheckpointError, CheckpointExpiredError, CheckpointInfo
from zengine_jupyter.testing.trees import digest_tree

DAY = 86_400


async def snap_at(shadow: ShadowRepository, when: int, message: str) -> CheckpointInfo:
    """A snapshot whose commit time is ``when`` (epoch seconds)."""
    saved = shadow._env
    date = f"{when} +0000"
    shadow._env = {**saved, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    try:
        info = await shadow.snapshot(message)
    finally:
        shadow._env = saved
    assert isinstance(info, CheckpointInfo), info
    return info


async def test_age_limit_keeps_recent_and_newest_and_ids_stay_valid(
    shadow: ShadowRepository, project: Path
) -> None:
    now = int(datetime.now(UTC).timestamp())
    ids = []
    for i, age in enumerate((40, 35, 3, 1)):
        (project / "data.csv").write_text(f"a,b\n{i},{i}\n")
        ids.append((await snap_at(shadow, now - age * DAY, f"turn {i}")).id)
    (project / "data.csv").write_text("later\n")
    retention = Retention(max_age_days=30, max_size_bytes=1 << 40)
    assert await needs_collection(shadow, retention) is not None

    report = await collect_garbage(shadow, retention)

    assert (report.kept, report.removed) == (2, 2)
    listed = await shadow.list()
    assert [c.message for c in listed] == ["turn 3", "turn 2"]
    assert [c.created for c in listed] == [
        datetime.fromtimestamp(now - d * DAY, UTC) for d in (1, 3)
    ]
    # the ids chat logs recorded: kept ones resolve to their re-created snapshot
    kept = await shadow.get(ids[2])
    assert kept.message == "turn 2"
    assert kept.id != ids[2]
    assert (await shadow.get(ids[3][:10])).message == "turn 3"
    # removed ones say so, with the date, instead of "unknown"
    with pytest.raises(CheckpointExpiredError) as expired:
        await shadow.get(ids[0])
    assert "removed by checkpoint retention on" in str(expired.value)
    assert "max_age_days" in (expired.value.hint or "")
    with pytest.raises(CheckpointError) as unknown:
        await shadow.get("ab" * 20)
    assert not isinstance(unknown.value, CheckpointExpiredError)

    # a restore by a logged id still works after the rewrite
    result = await restore_code(shadow, ids[2])
    assert "data.csv" in result.restored
    assert (project / "data.csv").read_text() == "a,b\n2,2\n"
    # and nothing left to collect
    assert await needs_collection(shadow, retention) is None
    again = await collect_garbage(shadow, retention)
    assert again.removed == 0


async def test_size_budget_removes_the_oldest_until_it_fits(
    shadow: ShadowRepository, project: Path
) -> None:
    (project / "src.py").write_text("x = 1\n")
    (project / "sub").mkdir()
    (project / "sub" / "keep.txt").write_text("kept\n")
    now = int(datetime.now(UTC).timestamp())
    ids = []
    for i in range(6):
        (project / "big.bin").write_bytes(os.urandom(300_000))  # incompressible
        ids.append((await snap_at(shadow, now - (10 - i) * 60, f"turn {i}")).id)
    before = repository_size(shadow.paths.git_dir)
    assert before > 1_700_000
    budget = 1_000_000
    retention = Retention(max_age_days=30, max_size_bytes=budget)
    assert await needs_collection(shadow, retention, check_age=False) == before

    report = await collect_garbage(shadow, retention)

    assert report.over_budget
    assert report.size_before == before
    assert 1 <= report.kept <= 3
    assert report.removed == 6 - report.kept
    assert report.size_after <= budget
    assert not report.still_over_budget
    assert len(await shadow.list()) == report.kept
    with pytest.raises(CheckpointExpiredError):
        await shadow.get(ids[0])
    newest = await shadow.get(ids[-1])
    assert newest.message == "turn 5"


async def test_a_budget_smaller_than_one_snapshot_keeps_the_newest_and_says_so(
    shadow: ShadowRepository, project: Path
) -> None:
    for _ in range(2):
        (project / "big.bin").write_bytes(os.urandom(200_000))
        await snap_at(shadow, int(datetime.now(UTC).timestamp()), "t")
    report = await collect_garbage(shadow, Retention(max_size_bytes=50_000))
    assert (report.kept, report.removed) == (1, 1)
    assert report.still_over_budget
    assert len(await shadow.list()) == 1


async def test_collection_never_touches_the_project_or_its_repository(
    shadow: ShadowRepository, project: Path, git: str
) -> None:
    import subprocess

    subprocess.run([git, "init", "-q"], cwd=project, check=True)
    (project / "a.txt").write_text("a\n")
    subprocess.run([git, "add", "a.txt"], cwd=project, check=True)
    now = int(datetime.now(UTC).timestamp())
    for i in range(3):
        (project / "b.txt").write_text(f"{i}\n")
        await snap_at(shadow, now - (3 - i) * 40 * DAY, f"t{i}")
    before = digest_tree(project)
    report = await collect_garbage(shadow, Retention(max_age_days=1), now=datetime.now(UTC))
    assert report.removed == 2
    assert digest_tree(project) == before


def test_retention_from_settings() -> None:
    retention = Retention.from_settings(7, 100)
    assert retention == Retention(max_age_days=7, max_size_bytes=100 * 1024 * 1024)
    assert timedelta(days=retention.max_age_days) == timedelta(days=7)
