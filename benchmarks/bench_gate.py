"""The permission gate's cost per call (issue 18 acceptance 6), against a naive rule matcher.

A typical mix, decided in turn over a real project folder (git init, a few files): Read of a
project file, Edit of one (allowed by ``Edit(src/**)``), a compound Bash command covered by three
allow rules (``git status && git diff --stat | head -20``), and ``npm test -- -k x`` under
``Bash(npm test:*)`` (the commands differ from round to round, so a parse cache only helps
within one decision). Ours: ``PermissionGate.decide`` (parsing, unwrapping, path classification
with symlinks resolved, write analysis). Baseline: what a gate that does none of that costs, a
plain ``fnmatch`` of each call's raw text or path against every rule: the floor any rule matcher
pays, not a safe gate. The row reports seconds per call.
"""

from __future__ import annotations

import atexit
import fnmatch
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks._harness import Benchmark

_ALLOW = ["Edit(src/**)", "Bash(git status:*)", "Bash(git diff:*)", "Bash(head:*)",
          "Bash(npm test:*)"]  # fmt: skip
_DENY = ["Bash(rm -rf:*)", "Read(.env)"]
_ROUNDS = 200


def _project() -> Path:
    root = Path(tempfile.mkdtemp(prefix="zengine-bench-gate-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "a.py").write_text("x = 1\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def benchmarks() -> list[Benchmark]:
    from zengine_jupyter.policy import CallView, PermissionGate, PermissionPolicy

    root = _project()
    source = root / "src" / "pkg" / "a.py"
    # Each round's commands differ, so nothing is served from a cache across calls.
    calls = [
        call
        for i in range(_ROUNDS)
        for call in (
            CallView("Read", "read", paths=(source,)),
            CallView("Edit", "edit", paths=(source,)),
            CallView("Bash", "execute", command=f"git status && git diff --stat | head -{i}"),
            CallView("Bash", "execute", command=f"npm test -- -k x{i}"),
        )
    ]
    gate = PermissionGate(root, PermissionPolicy.from_lists(allow=_ALLOW, deny=_DENY))

    def ours() -> float:
        start = time.perf_counter()
        for call in calls:
            gate.decide(call)
        return (time.perf_counter() - start) / len(calls)

    rules = [(r.split("(")[0], r[r.index("(") + 1 : -1]) for r in _ALLOW + _DENY]

    def naive(call: CallView) -> bool:
        text = call.command or str(call.paths[0].relative_to(root))
        family = {"read": "Read", "edit": "Edit"}.get(call.kind, call.tool)
        return any(
            tool == family and fnmatch.fnmatchcase(text, spec.replace(":*", "*"))
            for tool, spec in rules
        )

    def baseline() -> float:
        start = time.perf_counter()
        for call in calls:
            naive(call)
        return (time.perf_counter() - start) / len(calls)

    return [
        Benchmark(
            "gate.decide per call (Read, Edit, 2 Bash with rules) vs naive fnmatch of the rules",
            ours=ours,
            baseline=baseline,
            repeat=7,
        )
    ]
