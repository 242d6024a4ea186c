"""Checkpoints on a generated 20,000-file project against the raw git plumbing.

The baseline is what a naive implementation runs from a shell script: ``add -A``,
``write-tree`` and ``commit-tree`` with its own GIT_DIR and GIT_INDEX_FILE.
Issue limits: first snapshot <= 1.3x, incremental after 10 changed files <= 1.2x.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import subprocess
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


def _off_decision(tmp: Path) -> tuple[float, float]:
    root = tmp / "many"
    for d in range(51):
        (root / f"d{d}").mkdir(parents=True)
        for i in range(1000 if d < 50 else 1):
            (root / f"d{d}" / f"{i}").touch()
    start = time.perf_counter()
    off = asyncio.run(ShadowRepository(root, tmp / "off-home").snapshot("x"))
    ours = time.perf_counter() - start
    assert isinstance(off, CheckpointsOff)
    start = time.perf_counter()
    count = sum(len(files) for _d, _s, files in os.walk(root))
    assert count == 50_001
    return ours, time.perf_counter() - start


def benchmarks() -> list[Benchmark]:
    setup = _Setup()
    setup.ours(setup.ours_home)  # prime the incremental repositories once
    setup.raw(setup.raw_dir)
    off = _off_decision(setup.tmp)
    return [
        Benchmark("checkpoint first snapshot (20k files) vs raw add -A", setup.first_ours,
                  setup.first_raw, repeat=3, max_ratio=1.3),
        Benchmark("checkpoint after 10 changes vs raw add -A", setup.incremental_ours,
                  setup.incremental_raw, repeat=9, max_ratio=1.2),
        Benchmark("50,001 files -> off notice vs os.walk count", lambda: off[0],
                  lambda: off[1], repeat=1),
    ]  # fmt: skip
