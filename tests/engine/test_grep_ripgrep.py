"""Grep answers the same with ripgrep narrowing the files and without it (issue 25)."""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.engine.tools import GrepTool, ToolContext, _grep_read, _listing, _ripgrep
from zengine_jupyter.engine.tools._read_check import GateReads
from zengine_jupyter.host import CompletedRun, RunOptions
from zengine_jupyter.policy import PermissionGate, PermissionPolicy

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
    """ripgrep reads files while the walk lists the rest (in batches): it is never given a
    file the Read rules deny, an ignored file, a link out of the project or a skipped folder's
    file, and the answer is the one without ripgrep."""
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
