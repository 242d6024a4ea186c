"""Past the file limit checkpoints are off: decided by an early-exit count, once per chat."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from zengine_jupyter.host.checkpoint import ShadowRepository
from zengine_jupyter.host.checkpoint._count import FileLimit, count_files, project_rules
from zengine_jupyter.protocol import CheckpointInfo, CheckpointsOff


def mixed_tree(project: Path, git: str) -> None:
    (project / ".gitignore").write_text("*.log\nbuild/\n!keep.log\n")
    for name in ("a.py", "b.log", "keep.log", ".hidden"):
        (project / name).write_text("x\n")
    (project / "build").mkdir()
    (project / "build" / "out.o").write_text("o\n")
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    (sub / ".gitignore").write_text("*.tmp\n")
    (sub / "c.py").write_text("c\n")
    (sub / "d.tmp").write_text("d\n")
    (project / "link").symlink_to("a.py")
    os.mkfifo(project / "pipe")
    nested = project / "vendor" / "lib"
    nested.mkdir(parents=True)
    subprocess.run([git, "init", "-q", str(nested)], check=True)
    (nested / "inside.py").write_text("i\n")
    (project / ".z-engine" / "worktrees" / "w").mkdir(parents=True)
    (project / ".z-engine" / "worktrees" / "w" / "f.py").write_text("w\n")


async def test_the_count_agrees_with_what_git_status_lists(
    shadow: ShadowRepository, project: Path, git: str
) -> None:
    mixed_tree(project, git)
    counted = count_files(project, project_rules(project, shadow._exclude_text()), 1000)
    info = await shadow.snapshot("m")
    assert isinstance(info, CheckpointInfo)
    nested = [n for n in info.not_stored if n.reason == "nested_repository"]
    assert counted == info.file_count + len(nested)
    # .gitignore .hidden a.py keep.log link src/deep/.gitignore src/deep/c.py + vendor/lib/
    assert counted == 8


def test_the_count_stops_past_the_limit(tmp_path: Path) -> None:
    for d in range(5):
        (tmp_path / f"d{d}").mkdir()
        for i in range(100):
            (tmp_path / f"d{d}" / str(i)).touch()
    counted = count_files(tmp_path, project_rules(tmp_path, ""), 150)
    assert 150 < counted < 500


async def test_over_the_limit_is_decided_without_git_and_remembered_for_the_chat(
    shadow: ShadowRepository, project: Path
) -> None:
    shadow.file_limit = FileLimit(10)
    for i in range(11):
        (project / f"f{i}.txt").write_text(f"{i}\n")
    for _turn in range(3):
        off = await shadow.snapshot("m")
        assert isinstance(off, CheckpointsOff)
        assert off.kind == "too_many_files"
    assert shadow.file_limit.counts == 1  # once per chat, not per turn
    assert not (shadow.paths.git_dir / "HEAD").exists()  # no git repository was even made
    # a change at the top of the project counts again: ignoring files turns them back on
    (project / ".gitignore").write_text("f1*.txt\n")
    info = await shadow.snapshot("m")
    assert isinstance(info, CheckpointInfo)
    assert shadow.file_limit.counts == 2
    assert info.file_count == 10  # f0, f2..f9 and .gitignore
