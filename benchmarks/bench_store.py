"""Session store: appending and replaying, against the bare loops they cannot beat.

* append: 10,000 records through ``SessionWriter.append`` (serialise, one
  ``os.write``, fold into the live state) against ``f.write(json.dumps(record) +
  "\\n"); f.flush()`` over the same records (limit 1.5x, issue 3). A second,
  informational row compares with writing lines serialised beforehand.
* replay: ``SessionStore.read`` of a 100,000-record log (read, validate every line,
  fold, meta) against ``json.loads`` of each line of the same file (limit 2x). The clock
  stops when the read returns: freeing the 100,000 records afterwards (~70 ms here) is not
  replaying them, and an opened chat keeps them for its life.

Soak mode (not part of the table): ``python -m benchmarks.bench_store --soak 1000``
SIGKILLs a real appending child 1,000 times and checks every round.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from functools import cache
from pathlib import Path
from typing import Any

from benchmarks._harness import Benchmark
from zengine_jupyter.protocol import (
    LogRecord,
    MessageRecord,
    RecordedToolCall,
    ToolResultRecord,
    TurnEndRecord,
    TurnStartRecord,
    UsageRecord,
)
from zengine_jupyter.store import SessionStore

APPENDS = 10_000
REPLAYED = 100_000


def _records(n: int) -> list[LogRecord]:
    """A realistic mix: turns of a prompt, a tool call, its result, an answer, usage."""
    out: list[LogRecord] = []
    i = 0
    while len(out) < n:
        i += 1
        call = RecordedToolCall(id=f"call-{i}", name="Read", input={"path": f"src/mod_{i}.py"})
        out += [
            TurnStartRecord(turn_id=f"t{i}"),
            MessageRecord(role="user", text=f"Please look at src/mod_{i}.py and fix the bug."),
            MessageRecord(role="assistant", text="Let me read it.", tool_calls=(call,)),
            ToolResultRecord(tool_call_id=call.id, name="Read", output="def f(x):\n" * 30),
            MessageRecord(role="assistant", text="Fixed: the loop was off by one. " * 3),
            UsageRecord(model="m", input_tokens=1200, output_tokens=80, cost_usd=0.0042),
            TurnEndRecord(turn_id=f"t{i}", status="completed"),
        ]
    return out[:n]


@cache
def _append_input() -> tuple[list[LogRecord], list[dict[str, Any]], list[str]]:
    records = _records(APPENDS)
    dicts = [r.model_dump(mode="json") for r in records]
    return records, dicts, [json.dumps(d) + "\n" for d in dicts]


def _append_ours() -> float:
    records = _append_input()[0]
    with tempfile.TemporaryDirectory() as tmp:
        writer = SessionStore(Path(tmp)).create(session_id="bench")
        append = writer.append
        start = time.perf_counter()
        for record in records:
            append(record)
        elapsed = time.perf_counter() - start
        writer.close()
    return elapsed


def _append_bare(*, serialise: bool) -> float:
    _, dicts, lines = _append_input()
    with tempfile.TemporaryDirectory() as tmp, (Path(tmp) / "log.jsonl").open("w") as f:
        start = time.perf_counter()
        if serialise:
            for d in dicts:
                f.write(json.dumps(d) + "\n")
                f.flush()
        else:
            for line in lines:
                f.write(line)
                f.flush()
        return time.perf_counter() - start


@cache
def _replay_log() -> Path:
    root = Path(tempfile.mkdtemp(prefix="zengine-bench-store-"))
    with SessionStore(root).create(session_id="big") as writer:
        for record in _records(REPLAYED - 1):  # plus the session record: 100,000 lines
            writer.append(record)
    return root


def _replay_ours() -> float:
    start = time.perf_counter()
    snap = SessionStore(_replay_log()).read("big")
    elapsed = time.perf_counter() - start
    assert snap.state.records == REPLAYED
    return elapsed  # the clock stops before the chat is dropped: a chat read is kept open


def _replay_bare() -> None:
    count = 0
    with (_replay_log() / "big" / "log.jsonl").open("rb") as f:
        for line in f:
            json.loads(line)
            count += 1
    assert count == REPLAYED


def benchmarks() -> list[Benchmark]:
    return [
        Benchmark(
            f"append {APPENDS:,} records (write+flush each)",
            ours=_append_ours,
            baseline=lambda: _append_bare(serialise=True),
            repeat=7,
            max_ratio=1.5,
        ),
        Benchmark(
            f"append {APPENDS:,} vs lines serialised beforehand (info)",
            ours=_append_ours,
            baseline=lambda: _append_bare(serialise=False),
            repeat=7,
        ),
        Benchmark(
            f"replay {REPLAYED:,}-record log vs json.loads loop",
            ours=_replay_ours,
            baseline=_replay_bare,
            repeat=5,
            max_ratio=2.0,
        ),
    ]


def soak(kills: int) -> int:
    """SIGKILL an appending child ``kills`` times; 0 when every round kept its promise."""
    from zengine_jupyter.testing.store_kill import run_kill_rounds

    root = Path(tempfile.mkdtemp(prefix="zengine-soak-"))
    start = time.perf_counter()
    try:
        rounds = run_kill_rounds(root, kills, seed=int(time.time()), per_chat=10)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    bad = [
        (n, r)
        for n, r in enumerate(rounds)
        if not (
            r.killed_by_sigkill
            and r.in_order
            and r.acked <= r.kept - 1 <= r.acked + 1
            and r.skipped_lines == 0
            and r.cut_is_partial_line
            and r.append_after_works
        )
    ]
    cut = sum(r.cut_bytes > 0 for r in rounds)
    completed = sum(r.completed_tail for r in rounds)
    sys.stdout.write(
        f"soak: {len(rounds)} SIGKILLs in {time.perf_counter() - start:.1f} s;"
        f" torn tails cut: {cut}; tails completed: {completed}; failures: {len(bad)}\n"
    )
    for n, r in bad[:10]:
        sys.stdout.write(f"  round {n}: {r}\n")
    return 1 if bad or len(rounds) != kills else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] != ["--soak"]:
        sys.stderr.write("usage: python -m benchmarks.bench_store --soak [KILLS]\n")
        sys.exit(2)
    sys.exit(soak(int(args[1]) if len(args) > 1 else 1000))
