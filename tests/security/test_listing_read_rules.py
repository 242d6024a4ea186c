"""Issue 18.6: Glob and Grep apply Read rules to every file and follow no symlink out.

The model's calls go through a real session under ``zengine run --no`` (every question denied)
against the local provider; what reaches the provider is checked, not only the tool output.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.engine.tools._listing import walk_files
from zengine_jupyter.engine.tools._read_check import GateReads, ReadCheck
from zengine_jupyter.engine.tools._ripgrep_walk import RipgrepWalk
from zengine_jupyter.policy import PermissionGate, PermissionPolicy
from zengine_jupyter.protocol import EngineEvent, ToolCallFinished
from zengine_jupyter.testing import (
    Reply,
    ScriptedToolCall,
    configured_provider,
)
from zengine_jupyter.testing.trees import bare_repository

SECRET_DENIED = "needle-DENIED-7f3a"
SECRET_LINKED = "needle-LINKED-91bc"
SECRET_DIR = "needle-DIRLINK-55e1"
LEFT_OUT = "files left out: denied by Read rules or outside the project]"


class World:
    def __init__(self, tmp_path: Path) -> None:
        self.project = tmp_path / "proj"
        outside = tmp_path / "outside"
        (outside / "dir").mkdir(parents=True)
        (outside / "secret.txt").write_text(SECRET_LINKED + "\n")
        (outside / "dir" / "deep.txt").write_text(SECRET_DIR + "\n")
        (self.project / "secrets").mkdir(parents=True)
        (self.project / "secrets" / "key.txt").write_text(SECRET_DENIED + "\n")
        (self.project / "ok.txt").write_text("needle ok\n")
        (self.project / "link.txt").symlink_to(outside / "secret.txt")
        (self.project / "linkdir").symlink_to(outside / "dir")
        (self.project / "alias.txt").symlink_to(self.project / "secrets" / "key.txt")
        (self.project / "inner.txt").symlink_to(self.project / "ok.txt")


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


async def run_calls(
    world: World, home: Path, *calls: ScriptedToolCall, deny: str = '["Read(secrets/**)"]'
) -> tuple[list[ToolCallFinished], str]:
    """One turn of ``calls`` (one reply each); the tool results and every request sent."""
    async with configured_provider(home, f"[permissions]\ndeny = {deny}\n") as server:
        server.add(*(Reply(tool_calls=(c,)) for c in calls), Reply(text=("done",)))
        session = await Session.open(
            SessionOptions(project=world.project, approvals=FixedApprovals(allow=False))
        )
        events = session.subscribe()
        outcome = await session.submit("search")
        await session.aclose()
        sent = json.dumps([r.json for r in server.requests])
    assert outcome.status == "completed", outcome.reason
    seen: list[EngineEvent] = [e async for e in events]
    return [e for e in seen if isinstance(e, ToolCallFinished)], sent


def grep(path: str = ".", mode: str = "content") -> ScriptedToolCall:
    return ScriptedToolCall("Grep", {"pattern": "needle", "path": path, "output_mode": mode})


async def test_grep_sends_no_denied_and_no_linked_secret(world: World, zengine_home: Path) -> None:
    """Attack (issue 18.6 as reported): with ``deny = ["Read(secrets/**)"]`` and
    ``link.txt -> /outside/secret.txt``, Grep ``.`` sent both secrets to the provider while
    Read refused them."""
    results, sent = await run_calls(world, zengine_home, grep("."), grep("secrets"))

    assert SECRET_DENIED not in sent
    assert SECRET_LINKED not in sent
    assert SECRET_DIR not in sent
    first = results[0].output.splitlines()
    assert sorted(first[:-1]) == ["inner.txt:1:needle ok", "ok.txt:1:needle ok"]
    # left out: secrets/key.txt (denied), link.txt (outside), alias.txt (points at a denied file)
    assert first[-1] == "[3 " + LEFT_OUT
    assert results[1].output.splitlines() == ["no matches for 'needle'", "[1 " + LEFT_OUT]


async def test_ripgrep_s_own_walk_reports_a_denied_file_but_it_is_never_read(
    world: World, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack (issue 25, ripgrep walking the project itself): ripgrep knows nothing of the
    Read rules, so its walk names ``secrets/key.txt``; a project ``.ignore`` un-ignoring
    everything and a bare-repository-shaped folder add more names the listing never lists.
    Every hit must be checked against the listing: none of them may reach the provider."""
    (world.project / ".ignore").write_text("!*\n")
    bare = bare_repository(world.project / "mirror.git", "needle-BARE-c0ff\n")
    named: list[str] = []
    check = RipgrepWalk._check

    def recorded(self: RipgrepWalk, found: list[str]) -> None:
        named.extend(found)
        check(self, found)

    monkeypatch.setattr(RipgrepWalk, "_check", recorded)
    results, sent = await run_calls(world, zengine_home, grep("."), grep(".", "count"))

    if shutil.which("rg"):  # the attack is live: ripgrep's walk did name them
        assert str(world.project / "secrets" / "key.txt") in named
        assert str(bare / "config") in named
    assert SECRET_DENIED not in sent
    assert "needle-BARE" not in sent
    assert "key.txt" not in sent
    assert sorted(results[0].output.splitlines()[:-1]) == [
        "inner.txt:1:needle ok", "ok.txt:1:needle ok"
    ]  # fmt: skip
    assert sorted(results[1].output.splitlines()[:-1]) == ["inner.txt:1", "ok.txt:1"]


async def test_a_folder_symlink_out_of_the_project_is_not_followed(
    world: World, zengine_home: Path
) -> None:
    """Attack: ``linkdir -> /outside/dir``; Grep and Glob of the project must not read or list
    what is behind it, and Grep or Glob of ``linkdir`` itself asks (outside), so under --no it
    is refused."""
    results, sent = await run_calls(
        world, zengine_home, grep(".", "files_with_matches"),
        ScriptedToolCall("Glob", {"pattern": "**/*.txt"}), grep("linkdir"),
        ScriptedToolCall("Glob", {"pattern": "*", "path": "linkdir"}),
        deny="[]",
    )  # fmt: skip

    assert SECRET_DIR not in sent
    assert "deep.txt" not in sent
    assert SECRET_LINKED not in sent
    found = results[0].output.splitlines()
    assert sorted(found[:-1]) == ["alias.txt", "inner.txt", "ok.txt", "secrets/key.txt"]
    assert found[-1] == "[1 " + LEFT_OUT  # link.txt
    assert "linkdir" not in results[1].output
    assert results[2].is_error
    assert results[3].is_error


async def test_glob_does_not_list_a_denied_file(world: World, zengine_home: Path) -> None:
    """Attack: Glob names files Read rules deny (their names alone can be secrets, and the
    model then knows what to ask for)."""
    results, sent = await run_calls(
        world, zengine_home,
        ScriptedToolCall("Glob", {"pattern": "**/*.txt"}),
        ScriptedToolCall("Glob", {"pattern": "*", "path": "secrets"}),
    )  # fmt: skip

    assert "key.txt" not in sent
    listed = results[0].output.splitlines()
    assert sorted(listed[:-1]) == ["inner.txt", "ok.txt"]
    assert listed[-1] == "[3 " + LEFT_OUT
    assert results[1].output.splitlines()[-1] == "[1 " + LEFT_OUT


def test_walk_checks_each_file_once_against_the_read_rules(tmp_path: Path) -> None:
    """Unit: the listing asks ``read_decision`` about every file it keeps (and a link's target),
    and counts what it leaves out; ignored files are not asked about nor counted."""
    world = World(tmp_path)
    subprocess.run(["git", "init", "-q", str(world.project)], check=True, capture_output=True)
    (world.project / ".gitignore").write_text("ignored.txt\n")
    (world.project / "ignored.txt").write_text("x")
    asked: list[str] = []

    def decide(path: Path) -> str:
        asked.append(path.relative_to(world.project).as_posix())
        return "deny" if path.parts[-2] == "secrets" else "allow"

    check = ReadCheck.build(world.project, world.project, (), decide)
    listing = walk_files(world.project, world.project, check)
    shown = sorted(p.relative_to(world.project).as_posix() for p in listing.files)
    assert shown == [".gitignore", "inner.txt", "ok.txt"]
    assert listing.left_out == 3
    assert "ignored.txt" not in asked
    assert sorted(set(asked)) == [".gitignore", "alias.txt", "inner.txt", "ok.txt",
                                  "secrets/key.txt"]  # fmt: skip


def test_the_per_folder_cache_decides_as_the_gate_does(tmp_path: Path) -> None:
    """Unit (the cache behind 18.6's speed): a listing that reuses decisions within a folder
    keeps and leaves out exactly the files that asking the gate about each one would."""
    root = tmp_path / "proj"
    files = ["a.py", "key.pem", ".env", "secrets/k.txt", "secrets/deep/k2.txt", "config/prod.yaml",
             "config/dev.yaml", "notes/n.md", "notes/n.txt", "public/p.md", "public/x.pem",
             "deep/a/b/c.py", "deep/a/b/d.pem", ".hidden/h.py", "deep/.env"]  # fmt: skip
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    policy = PermissionPolicy.from_lists(
        deny=["Read(secrets/**)", "Read(**/*.pem)", "Read(.env)", "Read(config/prod.yaml)"],
        ask=["Read(notes/*.md)"],
        allow=["Read(public/**)"],
    )
    gate = GateReads(PermissionGate(root, policy))
    cached = walk_files(root, root, ReadCheck.build(root, root, (), gate))
    each = walk_files(root, root, ReadCheck.build(root, root, (), lambda p: gate(p)))
    assert sorted(cached.files) == sorted(each.files)
    assert cached.left_out == each.left_out == 8  # 7 denied, notes/n.md asks
    assert sorted(p.relative_to(root).as_posix() for p in cached.files) == [
        ".hidden/h.py", "a.py", "config/dev.yaml", "deep/.env", "deep/a/b/c.py", "notes/n.txt",
        "public/p.md",
    ]  # fmt: skip
