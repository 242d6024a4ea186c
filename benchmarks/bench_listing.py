"""Glob and Grep's listing without git (issue 18.1) and with Read rules on every file (18.6).

1. Listing a 20,000-file git work tree (everything added to the index, ignore files at the
   root and in folders, an ignored build folder): the engine's walk with its ignore matcher
   against ``git ls-files -z -c -o --exclude-standard`` plus the ``is_file`` check the old
   listing made on each path.
2. The same walk with the permission gate's Read decision on every file (a ``deny`` rule
   loaded, as a project with secrets has) against the walk alone: the gate's cost.
3. Grep over 5,000 files (files_with_matches) through the tool, Read rules on, against the
   same Grep without a gate: the cost per search as the model sees it.
4. Grep over the 20,000-file tree (files_with_matches, no gate) against ripgrep's own
   ``rg -l`` of the same tree, or ``git grep -l`` where ripgrep is not installed (issue 25
   limit: at most 1.5x).
"""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks._harness import Benchmark
from zengine_jupyter.engine.tools import GrepTool, ReadTracker, ShellRunner, ToolContext
from zengine_jupyter.engine.tools._listing import walk_files
from zengine_jupyter.engine.tools._read_check import GateReads, ReadCheck
from zengine_jupyter.policy import PermissionGate, PermissionPolicy

if TYPE_CHECKING:
    from collections.abc import Callable

LISTED = 20_000
GREPPED = 5_000


def _tree(root: Path, files: int) -> None:
    root.mkdir(parents=True)
    (root / ".gitignore").write_text("*.pyc\n__pycache__/\nbuild/\n*.log\n")
    (root / "build").mkdir()
    for i in range(200):
        (root / "build" / f"gen{i}.py").write_text("x\n")
    for i in range(files - 1):
        folder = root / f"pkg{i % 40}" / f"mod{i % 25}"
        if not folder.exists():
            folder.mkdir(parents=True)
            if i % 9 == 0:
                (folder / ".gitignore").write_text("*.tmp\ncache/\n")
        (folder / f"f{i}.py").write_text(f"value_{i} = {i}\n" + "# filler line\n" * 20)
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "PATH": os.defpath}
    subprocess.run(["git", "init", "-q", "."], cwd=root, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)


def _git_listing(root: Path) -> int:
    done = subprocess.run(
        ["git", "ls-files", "-z", "-c", "-o", "--exclude-standard", "--deduplicate"],
        cwd=root, check=True, capture_output=True,
        env={"GIT_OPTIONAL_LOCKS": "0", "PATH": os.defpath, "HOME": str(root)},
    )  # fmt: skip
    return sum((root / os.fsdecode(p)).is_file() for p in done.stdout.split(b"\0") if p)


def _gate(root: Path) -> PermissionGate:
    return PermissionGate(root, PermissionPolicy.from_lists(deny=["Read(secrets/**)"]))


def _walk(root: Path, gated: bool) -> int:
    decide = GateReads(_gate(root)) if gated else None
    return len(walk_files(root, root, ReadCheck.build(root, root, (), decide)).files)


def _grep(root: Path, gated: bool) -> int:
    async def go() -> int:
        shells = ShellRunner(root, root / ".artifacts")
        ctx = ToolContext(root=root, artifacts=root / ".artifacts", reads=ReadTracker(),
                          shells=shells, read_decision=GateReads(_gate(root)) if gated
                          else None)  # fmt: skip
        out = await GrepTool().call({"pattern": _PATTERN, "head_limit": 2000}, ctx)
        await shells.aclose()
        return len(out.content.splitlines())

    return asyncio.run(go())


def _bare_grep(root: Path) -> int:
    """ripgrep's own search of the tree (its walk, its ignore rules), else git grep."""
    rg = shutil.which("rg")
    argv = (
        [rg, "--no-config", "-l", _PATTERN, "."] if rg  # ".": never stdin, were it a pipe
        else ["git", "grep", "-l", "--untracked", "-P", _PATTERN]
    )  # fmt: skip
    done = subprocess.run(argv, cwd=root, capture_output=True, check=False,
                          stdin=subprocess.DEVNULL)  # fmt: skip
    return len(done.stdout.splitlines())


_PATTERN = r"value_\d+7 "


def benchmarks() -> list[Benchmark]:
    base = Path(tempfile.mkdtemp(prefix="zengine-bench-listing-"))
    atexit.register(shutil.rmtree, base, True)
    big, small = base / "listed", base / "grepped"
    _tree(big, LISTED)
    _tree(small, GREPPED)

    def timed(work: Callable[[], object]) -> Callable[[], None]:
        return lambda: (work(), None)[1]

    return [
        Benchmark("listing 20,000 files: own walk + ignore matcher vs git ls-files + is_file",
                  timed(lambda: _walk(big, False)), timed(lambda: _git_listing(big)), repeat=5),
        Benchmark("listing 20,000 files: walk + Read rules per file vs walk alone",
                  timed(lambda: _walk(big, True)), timed(lambda: _walk(big, False)), repeat=5),
        Benchmark("Grep 5,000 files: Read rules per file vs no gate",
                  timed(lambda: _grep(small, True)), timed(lambda: _grep(small, False)), repeat=5),
        Benchmark(f"Grep 20,000 files vs {'rg -l' if shutil.which('rg') else 'git grep -l'}",
                  timed(lambda: _grep(big, False)), timed(lambda: _bare_grep(big)), repeat=7,
                  max_ratio=1.5),
    ]  # fmt: skip
