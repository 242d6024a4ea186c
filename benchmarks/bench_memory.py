"""Peak memory of the work a kernel does for the engine, against the same work done bare.

Each sample runs in a fresh interpreter (the kernel's process stands in: a kernel adds the
same constant to both sides) that first imports what the step needs, notes its resident set,
does the step and reports how far the resident set of the process and its children (git),
sampled every 5 ms, rose above it at its peak:

* a 100,000-record replay: ``SessionStore.read`` against a ``json.loads`` loop over the lines;
* a first snapshot of a 20,000-file project: ``ShadowRepository.snapshot`` against the plain
  ``add -A`` + ``write-tree`` + ``commit-tree`` script (its git processes are all it has).

Issue 25 asks for the figures (no limit): the table shows them side by side.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

from benchmarks._harness import Benchmark

_PROBE = """
import json, os, sys, threading, time
def rss(pid):
    try:
        with open(f"/proc/{{pid}}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0
def tree(pid):
    out = [pid]
    try:
        for task in os.listdir(f"/proc/{{pid}}/task"):
            with open(f"/proc/{{pid}}/task/{{task}}/children") as f:
                for child in f.read().split():
                    out += tree(int(child))
    except OSError:
        pass
    return out
peak, done = [0], threading.Event()
def sample():
    while not done.is_set():
        peak[0] = max(peak[0], sum(rss(p) for p in tree(os.getpid())))
        time.sleep(0.005)
{prepare}
before = rss(os.getpid())
sampler = threading.Thread(target=sample)
sampler.start()
{work}
done.set()
sampler.join()
peak[0] = max(peak[0], rss(os.getpid()))
print(json.dumps({{"added": peak[0] - before}}))
"""
"""Sampled every 5 ms: the resident set of this process and all its descendants (git), summed,
over what it held before the step. Not ``ru_maxrss``: a child started by fork (or vfork) and
exec inherits its parent's peak in that figure, which would charge git with the engine's heap."""

_REPLAY_OURS = (
    "from pathlib import Path\nfrom zengine_jupyter.store import SessionStore",
    "assert SessionStore(Path(sys.argv[1])).read('big').state.records == 100_000",
)
_REPLAY_BARE = (
    "",
    "n = 0\nwith open(sys.argv[1] + '/big/log.jsonl', 'rb') as f:\n"
    "    for line in f:\n        json.loads(line); n += 1\nassert n == 100_000",
)
_SNAP_OURS = (
    "import asyncio\nfrom pathlib import Path\n"
    "from zengine_jupyter.host.checkpoint import ShadowRepository",
    "asyncio.run(ShadowRepository(Path(sys.argv[1]), Path(sys.argv[2])).snapshot('first'))",
)
_SNAP_BARE = (
    "import subprocess",
    "subprocess.run(['bash', sys.argv[3], sys.argv[2], sys.argv[1]], check=True)",
)


@cache
def _base() -> Path:
    base = Path(tempfile.mkdtemp(prefix="zengine-bench-memory-"))
    atexit.register(shutil.rmtree, base, True)
    return base


@cache
def _log() -> Path:
    from benchmarks.bench_store import REPLAYED, _records
    from zengine_jupyter.store import SessionStore

    root = _base() / "store"
    with SessionStore(root).create(session_id="big") as writer:
        for record in _records(REPLAYED - 1):
            writer.append(record)
    return root


@cache
def _project() -> Path:
    from benchmarks.bench_checkpoint import _RAW, _generate

    root = _base() / "project"
    root.mkdir()
    _generate(root, 20_000)
    (_base() / "raw.sh").write_text(_RAW)
    return root


def _peak(step: tuple[str, str], *args: str) -> float:
    code = _PROBE.format(prepare=step[0], work=step[1])
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    )
    return float(json.loads(done.stdout.strip().splitlines()[-1])["added"])


def _snap(step: tuple[str, str]) -> float:
    home = _base() / "snap-home"
    try:
        return _peak(step, str(_project()), str(home), str(_base() / "raw.sh"))
    finally:
        shutil.rmtree(home, ignore_errors=True)


def benchmarks() -> list[Benchmark]:
    os.environ.setdefault("ZENGINE_HOME", str(_base() / "home"))
    return [
        Benchmark("peak RSS: replay of 100,000 records vs json.loads loop",
                  lambda: _peak(_REPLAY_OURS, str(_log())),
                  lambda: _peak(_REPLAY_BARE, str(_log())), repeat=3, unit="bytes"),
        Benchmark("peak RSS (process + git): first snapshot of 20,000 files vs raw add -A",
                  lambda: _snap(_SNAP_OURS), lambda: _snap(_SNAP_BARE), repeat=1,
                  unit="bytes"),
    ]  # fmt: skip
