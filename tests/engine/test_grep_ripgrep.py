"""Grep answers the same with ripgrep narrowing the files and without it (issue 25)."""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.engine.tools import (
    GrepTool,
    ToolContext,
    _grep_read,
    _listing,
    _ripgrep,
    _ripgrep_walk,
)
from zengine_jupyter.engine.tools._read_check import GateReads
from zengine_jupyter.host import CompletedRun, RunOptions
from zengine_jupyter.policy import PermissionGate, PermissionPolicy
from zengine_jupyter.testing.trees import bare_repository

if TYPE_CHECKING:
    from pathlib import Path

needs_rg = pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")

CALLS: list[dict[str, object]] = [
    {"pattern": "needle"},
    {"pattern": "needle", "output_mode": "content", "context": 1},
    {"pattern": "NEEDLE", "case_insensitive": True, "output_mode": "count"},
    {"pattern": r"^needle$", "output_mode": "content"},
    {"pattern": r"needle(?= two)", "output_mode": "content"},  # look-ahead: Python only
    {"pattern": "needle", "glob": "*.py"},
    {"pattern": "needle", "path": "sub"},
    {"pattern": "needle", "head_limit": 1},
    {"pattern": "nothing-matches-this"},
]


def tree(root: Path) -> None:
    (root / ".gitignore").write_text("*.log\n")
    (root / "a.py").write_text("x = 1\nneedle two\n")
    (root / "b.txt").write_text("needle\r\nline\r\n")
    (root / "skip.log").write_text("needle in an ignored file\n")
    (root / ".hidden").write_text("needle in a hidden file\n")
    (root / "bin.dat").write_bytes(b"\0needle\n")
    sub = root / "sub"
    sub.mkdir()
    (sub / "c.py").write_text("pre\nneedle\npost\n")
    (root / "alias.py").symlink_to("sub/c.py")
    os.mkfifo(root / "pipe")


def denied_tree(ctx: ToolContext, tmp_path: Path) -> None:
    """:func:`tree`, a link out of the project, a denied file and 40 more files."""
    root = ctx.root
    tree(root)
    (tmp_path / "outside.txt").write_text("needle outside\n")
    (root / "out.txt").symlink_to(tmp_path / "outside.txt")
    (root / "secrets").mkdir()
    (root / "secrets" / "key.txt").write_text("needle secret\n")
    for i in range(40):  # several batches of the walk and of ripgrep runs
        (root / "sub" / f"m{i}.txt").write_text("needle\n" if i % 3 else "hay\n")
    gate = PermissionGate(root, PermissionPolicy.from_lists(deny=["Read(secrets/**)"]))
    ctx.read_decision = GateReads(gate)


async def answers(ctx: ToolContext) -> list[str]:
    return [(await GrepTool().call(dict(call), ctx)).content for call in CALLS]


@needs_rg
async def test_grep_with_ripgrep_answers_as_without_it(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree(ctx.root)
    asked: list[int] = []
    real = _ripgrep.RipgrepSearch.found

    async def counted(self: _ripgrep.RipgrepSearch) -> set[str] | None:
        found = await real(self)
        asked.append(0 if found is None else 1)
        return found

    monkeypatch.setattr(_ripgrep.RipgrepSearch, "found", counted)
    with_rg = await answers(ctx)
    assert sum(asked) >= len(CALLS) - 2  # ripgrep answered all but the look-ahead (and none)
    monkeypatch.setattr(_ripgrep, "find_ripgrep", lambda: None)
    without = await answers(ctx)
    assert with_rg == without
    assert with_rg[0].splitlines() == [".hidden", "a.py", "alias.py", "b.txt", "sub/c.py"]
    assert with_rg[3].splitlines() == ["alias.py:2:needle", "b.txt:1:needle", "sub/c.py:2:needle"]


@needs_rg
async def test_a_file_ripgrep_cannot_read_falls_back_to_python(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree(ctx.root)
    monkeypatch.setattr(_ripgrep, "TIMEOUT_S", 0.0001)  # as if a file had become a pipe
    out = await GrepTool().call({"pattern": "needle"}, ctx)
    assert out.content.splitlines() == [".hidden", "a.py", "alias.py", "b.txt", "sub/c.py"]


@needs_rg
async def test_ripgrep_is_named_only_files_the_listing_keeps(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Without ripgrep's own walk (the path taken when it fails, and for a file), ripgrep
    reads files while the walk lists the rest (in batches): it is never given a file the Read
    rules deny, an ignored file, a link out of the project or a skipped folder's file, and the
    answer is the one without ripgrep."""
    denied_tree(ctx, tmp_path)
    monkeypatch.setattr(_ripgrep_walk.RipgrepWalk, "start", lambda *a, **k: None)
    monkeypatch.setattr(_listing, "BATCH", 4)
    monkeypatch.setattr(_ripgrep, "BATCH_FILES", 5)
    monkeypatch.setattr(_grep_read, "AHEAD_FILES", 7)  # some read while rg runs, the rest after
    named: list[str] = []
    runs: list[int] = []
    real_run = _ripgrep.run  # type: ignore[attr-defined]

    async def recorded(argv: list[str], options: RunOptions) -> CompletedRun:
        names = argv[argv.index("--") + 1 :]
        named.extend(names)
        runs.append(len(names))
        return await real_run(argv, options)

    monkeypatch.setattr(_ripgrep, "run", recorded)
    with_rg = await answers(ctx)
    assert len(runs) > len(CALLS)  # more than one run per call: batches
    assert named
    for never in ("secrets/key.txt", "skip.log", "out.txt", "outside.txt", "pipe"):
        assert all(not n.endswith(never) for n in named), never
    monkeypatch.setattr(_ripgrep, "find_ripgrep", lambda: None)
    assert with_rg == await answers(ctx)
    assert "needle secret" not in with_rg[1]
    assert "needle outside" not in with_rg[1]
    assert "files left out" in with_rg[0]  # the denied file and the link out, counted


@needs_rg
async def test_ripgrep_s_own_walk_hands_on_only_listed_files(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """ripgrep walks the folder itself; of the files it names, only those the listing listed
    are read in Python (a denied file, an ignored file, a bare repository's internals are
    dropped), and the answer is the one without ripgrep."""
    denied_tree(ctx, tmp_path)
    bare_repository(ctx.root / "vendor.git", "needle in a bare repository\n")
    named: list[str] = []
    handed: list[str] = []
    check, scan = _ripgrep_walk.RipgrepWalk._check, _grep_read.Ahead.scan

    def recorded(self: _ripgrep_walk.RipgrepWalk, found: list[str]) -> None:
        named.extend(found)
        check(self, found)

    def scanned(self: _grep_read.Ahead, reals: set[str]) -> None:
        handed.extend(reals)
        scan(self, reals)

    monkeypatch.setattr(_ripgrep_walk.RipgrepWalk, "_check", recorded)
    monkeypatch.setattr(_grep_read.Ahead, "scan", scanned)
    with_rg = await answers(ctx)
    shown = {str(ctx.root / n) for n in ("secrets/key.txt", "vendor.git/config")}
    assert shown <= set(named)  # ripgrep's walk found them: the check is what drops them
    assert not (shown | {str(ctx.root / "skip.log")}) & set(handed)
    assert str(ctx.root / "a.py") in handed
    monkeypatch.setattr(_ripgrep, "find_ripgrep", lambda: None)
    assert with_rg == await answers(ctx)
    assert "needle secret" not in with_rg[1]
    assert "bare repository" not in with_rg[1]


@needs_rg
async def test_a_failed_walk_searches_the_listed_files_by_name(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ripgrep's walk stops on a file or folder it cannot read (exit status 2): the listed
    files are then given to ripgrep by name, and the answer does not change."""
    tree(ctx.root)
    locked = ctx.root / "locked"
    locked.mkdir()
    (locked / "x.txt").write_text("needle\n")
    locked.chmod(0)
    try:
        unreadable = not os.access(locked, os.R_OK)
        with_rg = await answers(ctx)
        monkeypatch.setattr(_ripgrep, "find_ripgrep", lambda: None)
        assert with_rg == await answers(ctx)
    finally:
        locked.chmod(0o755)
    if unreadable:  # as root every folder is readable
        assert "locked" not in with_rg[0]


@needs_rg
async def test_a_rgignore_file_does_not_hide_a_listed_file(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ripgrep reads ``.rgignore`` files whatever its flags say; the listing does not: a
    listed file one hides is still searched (the walk's answer is set aside)."""
    tree(ctx.root)
    (ctx.root / "sub" / ".rgignore").write_text("*.py\n")
    with_rg = await answers(ctx)
    assert "sub/c.py" in with_rg[0].splitlines()
    monkeypatch.setattr(_ripgrep, "find_ripgrep", lambda: None)
    assert with_rg == await answers(ctx)


@needs_rg
async def test_a_walk_still_running_after_the_listing_is_stopped(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk reads files of any size (Python reads none over 8 MiB): one that runs on past
    its time once the listing is done is stopped and the listed files are searched by name
    (large files left out there); the answer is the same either way."""
    tree(ctx.root)
    (ctx.root / "big.txt").write_bytes(b"x\n" * (4 * 1024 * 1024 + 1) + b"needle\n")
    with_rg = await answers(ctx)
    assert "big.txt" not in with_rg[0]
    given: list[int] = []
    real = _ripgrep.ripgrep_candidates

    async def by_name(
        files: list[str], base: Path, pattern: str, *, case_insensitive: bool
    ) -> set[str] | None:
        given.append(len(files))
        return await real(files, base, pattern, case_insensitive=case_insensitive)

    monkeypatch.setattr(_ripgrep_walk, "ripgrep_candidates", by_name)
    monkeypatch.setattr(_ripgrep_walk, "WAIT_S", 0.0)
    monkeypatch.setattr(_ripgrep_walk, "WAIT_PER_FILE_S", 0.0)
    assert with_rg == await answers(ctx)
    assert max(given) >= 6  # the whole listing given by name: the walk was stopped
    monkeypatch.setattr(_ripgrep, "find_ripgrep", lambda: None)
    assert with_rg == await answers(ctx)
