"""Checkpoints on a generated 20,000-file project against the raw git plumbing.

The baseline is what a naive implementation runs from a shell script: ``add -A``,
``write-tree`` and ``commit-tree`` with its own GIT_DIR and GIT_INDEX_FILE.
Issue 25 limits: first snapshot <= 0.4x, incremental after 10 changed files <= 1.1x; past
50,000 files the "off" decision <= 2x a bare count that stops at 50,001, and the next turns
of the same chat pay nothing (the second row: a remembered answer against the same count).
The steps of our first and incremental snapshots are printed (``ZENGINE_BENCH_STEPS=1``).
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._harness import Benchmark
from zengine_jupyter.host.checkpoint import ShadowRepository
from zengine_jupyter.protocol import CheckpointInfo, CheckpointsOff

FILES = 20_000
_RAW = """set -e
[ -d "$1" ] || git init -q --bare "$1"
export GIT_DIR="$1" GIT_WORK_TREE="$2" GIT_INDEX_FILE="$1/index"
git add -A
tree=$(git write-tree)
echo snapshot | git -c user.name=b -c user.email=b@b commit-tree "$tree" >/dev/null
"""
_WORDS = [
    "import",
    "pandas",
    "as",
    "pd",
    "def",
    "run",
    "return",
    "value",
    "column",
    "frame",
    "data",
    "result",
    "np",
    "mean",
]


def _generate(root: Path, files: int) -> None:
    rnd = random.Random(7)
    for i in range(files):
        folder = root / f"pkg{i % 40}" / f"mod{i % 13}"
        folder.mkdir(parents=True, exist_ok=True)
        size = rnd.randint(200, 14_000)
        words = " ".join(rnd.choice(_WORDS) for _ in range(size // 6))
        (folder / f"f{i}.py").write_text(f"# file {i}\n{words}\n")


class _Setup:
    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="zengine-bench-"))
        self.project = self.tmp / "project"
        self.project.mkdir()
        _generate(self.project, FILES)
        self.script = self.tmp / "raw.sh"
        self.script.write_text(_RAW)
        self.runs = 0
        self.ours_home = self.tmp / "ours-incremental"
        self.raw_dir = self.tmp / "raw-incremental"

    def fresh(self, name: str) -> Path:
        self.runs += 1
        return self.tmp / f"{name}-{self.runs}"

    def raw(self, git_dir: Path) -> float:
        start = time.perf_counter()
        subprocess.run(["bash", str(self.script), str(git_dir), str(self.project)], check=True)
        return time.perf_counter() - start

    def ours(self, home: Path) -> float:
        repo = ShadowRepository(self.project, home)
        start = time.perf_counter()
        info = asyncio.run(repo.snapshot("bench"))
        elapsed = time.perf_counter() - start
        assert isinstance(info, CheckpointInfo), info
        if os.environ.get("ZENGINE_BENCH_STEPS"):
            steps = "  ".join(f"{k} {v * 1e3:.0f} ms" for k, v in repo.last_steps.items())
            sys.stderr.write(f"  steps ({elapsed * 1e3:.0f} ms): {steps}\n")
        return elapsed

    def touch_ten(self) -> None:
        self.runs += 1
        for i in range(10):
            path = self.project / f"pkg{i}" / f"mod{i % 13}" / f"f{i * 53 + i}.py"
            if path.exists():
                with path.open("a") as fh:
                    fh.write(f"# edit {self.runs}\n")
            else:
                path.write_text(f"new {self.runs}\n")

    def first_ours(self) -> float:
        home = self.fresh("ours")
        try:
            return self.ours(home)
        finally:
            shutil.rmtree(home)

    def first_raw(self) -> float:
        git_dir = self.fresh("raw")
        try:
            return self.raw(git_dir)
        finally:
            shutil.rmtree(git_dir)

    def incremental_ours(self) -> float:
        self.touch_ten()
        return self.ours(self.ours_home)

    def incremental_raw(self) -> float:
        self.touch_ten()
        return self.raw(self.raw_dir)


def bare_count(root: str, limit: int) -> int:
    """os.scandir recursion counting files (no stat, no ignore rules), stopping past ``limit``."""
    count = 0
    stack = [root]
    while stack and count <= limit:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                else:
                    count += 1
    return count


class _Many:
    """A project of 50,001 files: checkpoints off, with a notice."""

    def __init__(self, tmp: Path) -> None:
        self.root = tmp / "many"
        for d in range(51):
            (self.root / f"d{d}").mkdir(parents=True)
            for i in range(1000 if d < 50 else 1):
                (self.root / f"d{d}" / f"{i}").touch()
        self.homes = tmp / "off-homes"
        self.chat = ShadowRepository(self.root, self.homes / "chat")
        self.runs = 0

    def first_turn(self) -> None:
        self.runs += 1
        repo = ShadowRepository(self.root, self.homes / str(self.runs))  # a new chat
        off = asyncio.run(repo.snapshot("x"))
        assert isinstance(off, CheckpointsOff), off

    def next_turn(self) -> None:
        off = asyncio.run(self.chat.snapshot("x"))
        assert isinstance(off, CheckpointsOff), off
        assert self.chat.file_limit.counts == 1

    def bare(self) -> None:
        assert bare_count(str(self.root), 50_000) == 50_001


def benchmarks() -> list[Benchmark]:
    setup = _Setup()
    setup.ours(setup.ours_home)  # prime the incremental repositories once
    setup.raw(setup.raw_dir)
    many = _Many(setup.tmp)
    many.next_turn()  # the chat's first turn counted; the next ones remember
    return [
        Benchmark("checkpoint first snapshot (20k files) vs raw add -A", setup.first_ours,
                  setup.first_raw, repeat=5, max_ratio=0.4),
        Benchmark("checkpoint after 10 changes vs raw add -A", setup.incremental_ours,
                  setup.incremental_raw, repeat=11, max_ratio=1.1),
        Benchmark("50,001 files -> off notice (new chat) vs bare count to 50,001",
                  many.first_turn, many.bare, repeat=7, max_ratio=2.0),
        Benchmark("50,001 files -> off notice (next turn) vs bare count to 50,001",
                  many.next_turn, many.bare, repeat=7, max_ratio=2.0),
    ]  # fmt: skip
