"""Verification: the fingerprint against a bare walk, and discovery on a big monorepo.

1. The fingerprint of a generated 50,000-file tree against a bare ``os.scandir`` + stat
   walk of the same tree (issue 25 limit: at most 1.2x). The tree has ignore files (root and
   nested) so the ignore matching is paid on every name, but nothing in it is ignored:
   both sides stat the same 50,000 files. A sample is 3 interleaved pairs keeping each side's
   fastest (``benchmarks/_pairs.py``): one walk costs ~0.3 s, and on this shared machine a
   walk preempted once moved the plain median by 40 % from run to run.
2. Discovery on a generated 2,000-folder monorepo (package.json, pyproject.toml and
   Cargo.toml packages), shown against the bare walk of the same tree (no limit; the
   figure is what matters).
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path

from benchmarks._harness import Benchmark
from benchmarks._pairs import Pairs
from zengine_jupyter.host import fingerprint_tree
from zengine_jupyter.verify import discover_checks_sync

FILES = 50_000
PACKAGES = 500  # x 4 folders each = 2,000 folders


def bare_walk(root: str) -> int:
    """os.scandir recursion + stat of every file: the floor a fingerprint cannot beat."""
    count = 0
    stack = [root]
    while stack:
        folder = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                else:
                    entry.stat(follow_symlinks=False)
                    count += 1
    return count


def _tree(root: Path) -> None:
    (root / ".gitignore").write_text("*.pyc\n__pycache__/\n.venv/\nbuild/\n*.log\n!keep.log\n")
    written = 1
    for i in range(FILES - 1):
        folder = root / f"pkg{i % 50}" / f"mod{i % 20}"
        if not folder.exists():
            folder.mkdir(parents=True)
            if i % 7 == 0:
                (folder / ".gitignore").write_text("*.tmp\ncache/\n")
                written += 1
                if written >= FILES:
                    break
        (folder / f"f{i}.py").write_text(f"x = {i}\n")
        written += 1
        if written >= FILES:
            break


def _monorepo(root: Path) -> None:
    (root / "package.json").write_text(json.dumps({"scripts": {"lint": "eslint ."}}))
    (root / "pnpm-lock.yaml").write_text("lockfileVersion: '9.0'\n")
    for i in range(PACKAGES):
        pkg = root / "packages" / f"p{i}"
        for sub in ("src", "test", "lib"):
            (pkg / sub).mkdir(parents=True)
            (pkg / sub / "index.ts").write_text("export {}\n")
        if i % 3 == 0:
            (pkg / "pyproject.toml").write_text("[tool.pytest.ini_options]\n[tool.ruff]\n")
        elif i % 3 == 1:
            (pkg / "Cargo.toml").write_text(f'[package]\nname = "p{i}"\nversion = "0.1.0"\n')
        else:
            scripts = {"test": "vitest run", "build": "tsc -b", "typecheck": "tsc --noEmit"}
            (pkg / "package.json").write_text(json.dumps({"name": f"p{i}", "scripts": scripts}))


def benchmarks() -> list[Benchmark]:
    base = Path(tempfile.mkdtemp(prefix="zengine-bench-verify-"))
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    tree = base / "tree"
    tree.mkdir()
    _tree(tree)
    files = fingerprint_tree(tree).files
    if files != bare_walk(str(tree)):
        raise AssertionError("the fingerprint must cover every file of the generated tree")
    mono = base / "monorepo"
    mono.mkdir()
    _monorepo(mono)
    folders = sum(1 for _ in os.walk(mono))
    checks = len(discover_checks_sync(mono))
    walks = Pairs(lambda: fingerprint_tree(tree), lambda: bare_walk(str(tree)), pairs=3)
    return [
        Benchmark(
            f"fingerprint of {files:,} files vs bare scandir+stat",
            ours=walks.ours,
            baseline=walks.theirs,
            repeat=7,
            max_ratio=1.2,
        ),
        Benchmark(
            f"discovery on {folders:,} folders ({checks:,} checks) vs bare walk",
            ours=lambda: (discover_checks_sync(mono), None)[1],
            baseline=lambda: (bare_walk(str(mono)), None)[1],
            repeat=5,
        ),
    ]
