"""Write raced through a swapped symlink (issue 18.2): the engine must never write outside."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.engine.tools import ReadTracker, ShellRunner, Tool, ToolContext, WriteTool
from zengine_jupyter.policy import CallView, PermissionGate, PermissionPolicy
from zengine_jupyter.protocol import ToolError
from zengine_jupyter.testing import (
    Reply,
    ScriptedToolCall,
    configured_provider,
)

ROUNDS = 250

FLIPPER = """
import os, sys
link, inside, outside = sys.argv[1:]
tmp = link + ".flip"
while True:
    for target in (inside, outside):
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        os.symlink(target, tmp)
        os.replace(tmp, link)
"""


def _project_with_a_link(tmp_path: Path) -> tuple[Path, Path]:
    """``project/d`` -> ``project/real``, and an empty ``outside`` folder beside the project."""
    root = tmp_path / "project"
    (root / "real").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "d").symlink_to(root / "real")
    return root, outside


def _flipper(root: Path, outside: Path) -> subprocess.Popen[bytes]:
    """A process flipping ``root/d`` between ``root/real`` and ``outside`` until killed."""
    argv = [sys.executable, "-c", FLIPPER, str(root / "d"), str(root / "real"), str(outside)]
    return subprocess.Popen(argv)


async def gated_call(
    tool: Tool[Any], arguments: dict[str, Any], ctx: ToolContext, gate: PermissionGate
) -> str:
    """One call the way the engine makes it: parse, the gate on ``paths``, then ``run``.
    Asks are answered "no" (the user approved nothing), so only allowed calls run."""
    args = tool.parse(arguments)
    view = CallView(tool.name, tool.kind, tuple(tool.paths(args, ctx)), tool.command(args))
    if gate.decide(view).action != "allow":
        return "refused"
    try:
        out = await tool.run(args, ctx)
    except ToolError:
        return "error"
    return "error" if out.is_error else "written"


async def test_write_through_a_flipping_symlink_never_lands_outside(tmp_path: Path) -> None:
    """Attack: a background process (standing in for a sandboxed command, which may write
    inside the project) flips the symlink ``d`` between a project folder and an outside one
    in a tight loop while the model Writes ``d/pwnN.txt`` in accept_edits mode. The gate
    sees ``d`` pointing inside and allows; the write then followed ``d`` outside (4 of 40
    on main). Every call must write inside or return a tool error: 0 files outside."""
    root, outside = _project_with_a_link(tmp_path)
    shells = ShellRunner(root, tmp_path / "artifacts")
    ctx = ToolContext(root=root, artifacts=tmp_path / "artifacts", reads=ReadTracker(),
                      shells=shells)  # fmt: skip
    gate = PermissionGate(root, PermissionPolicy.from_lists(mode="accept_edits"))
    write = WriteTool()
    flipper = _flipper(root, outside)
    outcomes: dict[str, int] = {}
    started = time.monotonic()
    try:
        time.sleep(0.2)
        for n in range(ROUNDS):
            got = await gated_call(write, {"path": f"d/pwn{n}.txt", "content": "x"}, ctx, gate)
            outcomes[got] = outcomes.get(got, 0) + 1
    finally:
        flipper.kill()
        flipper.wait()
        await shells.aclose()
    elapsed = time.monotonic() - started
    escaped = sorted(p.name for p in outside.iterdir())
    print(f"{ROUNDS} writes in {elapsed:.1f}s: {outcomes}; outside: {len(escaped)}")
    assert escaped == [], f"{len(escaped)} of {ROUNDS} writes landed outside: {escaped[:5]}"
    assert outcomes.get("written", 0) > 0, outcomes  # the race was really run
    assert sum(outcomes.values()) == ROUNDS
    assert elapsed < 20


async def test_a_session_in_accept_edits_never_writes_through_the_flipping_symlink(
    tmp_path: Path, zengine_home: Path
) -> None:
    """Attack (the same, end to end): a model's turn makes 200 Write calls to ``d/pwnN.txt``
    in a real Session in accept_edits mode while a background process flips ``d`` between a
    project folder and an outside one; every ask is answered "no". The turn completes, each
    call writes inside or is an error result, and 0 files appear outside. (End-to-end
    companion of the test above, which is the one that reproduces on main: through a Session
    the race did not land a file outside in our runs of main.)"""
    root, outside = _project_with_a_link(tmp_path)
    calls = tuple(
        ScriptedToolCall("Write", {"path": f"d/pwn{n}.txt", "content": "x"}) for n in range(200)
    )
    async with configured_provider(zengine_home) as server:
        server.add(Reply(tool_calls=calls), Reply(text=("done",)))
        session = await Session.open(
            SessionOptions(project=root, approvals=FixedApprovals(False), mode="accept_edits")
        )
        flipper = _flipper(root, outside)
        try:
            outcome = await session.submit("write them")
        finally:
            flipper.kill()
            flipper.wait()
            await session.aclose()
    assert outcome.status == "completed", outcome.reason
    results = server.requests[-1].json["messages"][-1]["content"]
    errors = sum(1 for r in results if r.get("is_error"))
    written = len(list((root / "real").glob("pwn*.txt")))
    print(f"session: 200 Writes, {written} written inside, {errors} error results")
    assert sorted(p.name for p in outside.iterdir()) == []
    assert written + errors == 200
    assert written > 0
