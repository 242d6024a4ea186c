"""Grep answers the same with ripgrep narrowing the files and without it (issue 25)."""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.engine.tools import GrepTool, ToolContext, _ripgrep

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
    real = _ripgrep.ripgrep_candidates

    async def counted(*args: object, **kwargs: object) -> object:
        found = await real(*args, **kwargs)  # type: ignore[arg-type]
        asked.append(0 if found is None else 1)
        return found

    monkeypatch.setattr("zengine_jupyter.engine.tools._search.ripgrep_candidates", counted)
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
