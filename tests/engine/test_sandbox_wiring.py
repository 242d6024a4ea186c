"""The sandbox through the engine (issue 8): a scripted model's Bash calls under real bubblewrap.

``[shell.sandbox] enabled = true`` in the user settings puts Bash and background shells in the
sandbox (writes outside the project fail, network off reaches no localhost server), auto-allow
lets inside-only writes run without asking while deny and ask rules still win, and with bwrap
unavailable a notice says so and every command asks (and runs unconfined). Hooks stay outside.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path

import pytest

from zengine_jupyter.config import Settings
from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.engine._sandbox import SandboxExtension, sandbox_options
from zengine_jupyter.host.sandbox import DetectOptions, settle_placeholders
from zengine_jupyter.protocol import (
    EngineEvent,
    Notice,
    ToolCallApproved,
    ToolCallDenied,
    ToolCallFinished,
)
from zengine_jupyter.testing import (
    ProviderServer,
    RecordingApprovals,
    RecordingServer,
    Reply,
    ScriptedToolCall,
    write_provider_settings,
)
from zengine_jupyter.testing.components import require_component


class World:
    def __init__(self, tmp_path: Path, home: Path) -> None:
        self.base = tmp_path
        self.home = home
        self.project = tmp_path / "proj"
        self.project.mkdir()
        self.outside = tmp_path / "outside.txt"


@pytest.fixture
def world(tmp_path: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """A project under ``tmp_path`` and a private temporary folder, so that the writable temp
    area does not contain the project's parent (which stands for "outside")."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return World(tmp_path, zengine_home)


def _settings(world: World, server: ProviderServer, sandbox: str, extra: str = "") -> None:
    write_provider_settings(world.home, server.base_url, f"{extra}[shell.sandbox]\n{sandbox}\n")


def _bash(*commands: str) -> Reply:
    return Reply(tool_calls=tuple(ScriptedToolCall("Bash", {"command": c}) for c in commands))


async def _turn(
    world: World,
    server: ProviderServer,
    approvals: RecordingApprovals,
    *replies: Reply,
    background: tuple[str, ...] = (),
) -> tuple[Session, list[EngineEvent]]:
    """One turn of scripted ``replies``; waits for the ``background`` shells before closing."""
    server.add(*replies, Reply(text=("done",)))
    session = await Session.open(SessionOptions(project=world.project, approvals=approvals))
    events = session.subscribe()
    outcome = await session.submit("go")
    assert outcome.status == "completed", outcome.reason
    for shell_id in background:
        task = session.ctx.shells.get(shell_id).task
        assert task is not None
        await asyncio.wait_for(task, 30)
    await session.aclose()
    return session, [e async for e in events]


def _running(marker: str) -> list[str]:
    """Processes whose command line contains ``marker``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            if marker in cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                found.append(cmdline.parent.name)
    return found


def _results(events: list[EngineEvent]) -> list[ToolCallFinished]:
    return [e for e in events if isinstance(e, ToolCallFinished)]


async def test_bash_writes_only_inside_and_hooks_stay_outside(world: World) -> None:
    require_component("bwrap")
    hook_mark = world.base / "hook-ran.txt"
    hook = json.dumps([sys.executable, "-c", f"open({str(hook_mark)!r}, 'a').write('x')"])
    inside = "echo in > inside.txt && echo ok"
    outside = f"echo out > {world.outside}"
    escape = "echo up > ../escape.txt"
    background = f"echo bg > {world.base / 'bg.txt'}; echo bg-rc=$?"
    async with ProviderServer() as server:
        _settings(world, server, "enabled = true",
                  f"[[hooks.pre_tool_use]]\ncommand = {hook}\n")  # fmt: skip
        approvals = RecordingApprovals(default="allow_once")
        server.add(Reply(tool_calls=(ScriptedToolCall(
            "Bash", {"command": background, "run_in_background": True}),)))  # fmt: skip
        slow = Reply(tool_calls=(ScriptedToolCall(
            "Bash", {"command": "sleep 30.17; echo never", "timeout": 1}),))  # fmt: skip
        session, events = await _turn(
            world, server, approvals, _bash(inside, outside, escape), slow, background=("shell-1",)
        )
        shell = session.ctx.shells.get("shell-1")
        first = server.requests[0].json
    assert "run in a sandbox" in str(first["system"])
    assert approvals.commands == [background, inside, outside, escape, "sleep 30.17; echo never"]
    finished = _results(events)  # no auto_allow: every command asked
    assert [r.is_error for r in finished] == [False, False, True, True, True]
    assert "[stopped: still running after 1 s]" in finished[4].output
    assert _running("sleep 30.17") == []  # the deadline ended the sandboxed command too
    assert finished[1].output.strip() == "ok"
    assert (world.project / "inside.txt").read_text() == "in\n"
    assert "Read-only file system" in finished[2].output
    assert "Read-only file system" in finished[3].output
    assert not world.outside.exists()
    assert not (world.base / "escape.txt").exists()
    assert shell.exit_code == 0
    bg_output = shell.artifact.read_text()
    assert "Read-only file system" in bg_output
    assert "bg-rc=1" in bg_output
    assert not (world.base / "bg.txt").exists()
    # hooks are never sandboxed: the pre_tool_use hook wrote outside the project each time
    assert hook_mark.read_text() == "x" * 5
    # the placeholders that kept absent protected paths (.git, .claude, ...) blocked are gone
    settle_placeholders()  # removed on the releaser thread, after each command's result
    assert sorted(p.name for p in world.project.iterdir()) == ["inside.txt"]
    assert not [e for e in events if isinstance(e, Notice) and e.topic == "sandbox"]


@pytest.mark.parametrize("network", [False, True])
async def test_network_off_reaches_no_localhost_server(world: World, network: bool) -> None:
    require_component("bwrap")
    with RecordingServer() as target:
        port = int(target.url.rsplit(":", 1)[1])
        async with ProviderServer() as server:
            _settings(world, server, f"enabled = true\nallow_network = {str(network).lower()}")
            probe = (
                f"exec 3<>/dev/tcp/127.0.0.1/{port} && "
                "printf 'GET /probe HTTP/1.0\\r\\n\\r\\n' >&3 && head -c 12 <&3"
            )
            _, events = await _turn(
                world, server, RecordingApprovals(default="allow_once"), _bash(probe)
            )
        reached = [r.path for r in target.requests]
    (result,) = _results(events)
    if network:
        assert not result.is_error, result.output
        assert result.output.startswith("HTTP/1.")
        assert reached == ["/probe"]
    else:
        assert result.is_error
        assert "Connection refused" in result.output or "Network is unreachable" in result.output
        assert reached == []


async def test_auto_allow_runs_inside_writes_and_asks_for_the_rest(world: World) -> None:
    require_component("bwrap")
    (world.project / "old.txt").write_text("x")
    inside = "mkdir -p out && echo a > out/a.txt"
    outside = f"cp out/a.txt {world.outside}"
    denied = "rm old.txt"
    asked = "touch marked.txt"
    async with ProviderServer() as server:
        _settings(world, server, "enabled = true\nauto_allow = true",
                  '[permissions]\ndeny = ["Bash(rm:*)"]\nask = ["Bash(touch:*)"]\n')  # fmt: skip
        approvals = RecordingApprovals()
        _, events = await _turn(world, server, approvals, _bash(inside, outside, denied, asked))
    assert approvals.commands == [outside, asked]
    assert (world.project / "out" / "a.txt").read_text() == "a\n"
    approved = [e for e in events if isinstance(e, ToolCallApproved)]
    assert [e.by for e in approved] == ["auto_allow"]
    denials = [e for e in events if isinstance(e, ToolCallDenied)]
    assert [e.by for e in denials] == ["user", "rule", "user"]
    assert (world.project / "old.txt").exists()
    assert not world.outside.exists()
    assert not (world.project / "marked.txt").exists()


async def test_without_bwrap_a_notice_and_every_command_asks(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = str(world.base / "no-such-bwrap")
    monkeypatch.setattr(SandboxExtension, "detect_options", DetectOptions(bwrap=missing))
    inside = "echo in > inside.txt"
    outside = f"echo out > {world.outside}"
    async with ProviderServer() as server:
        _settings(world, server, "enabled = true\nauto_allow = true")
        approvals = RecordingApprovals(default="allow_once")
        session, events = await _turn(world, server, approvals, _bash(inside, outside))
        first = server.requests[0].json
    assert approvals.commands == [inside, outside]  # auto_allow does not apply unconfined
    notices = [e.text for e in events if isinstance(e, Notice) and e.topic == "sandbox"]
    assert notices[0].startswith(f"Sandbox off: {missing} is not installed.")
    assert "apt-get install bubblewrap" in notices[0]
    assert len(notices) == 3  # at start, and once for each command that ran unconfined
    assert all("keep asking for approval" in n for n in notices)
    assert "run in a sandbox" not in str(first["system"])
    # unconfined indeed: both writes happened
    assert (world.project / "inside.txt").read_text() == "in\n"
    assert world.outside.read_text() == "out\n"
    assert session.gate.auto_allow is None


async def test_sandbox_off_by_default_changes_nothing(world: World) -> None:
    async with ProviderServer() as server:
        _settings(world, server, "")
        session, events = await _turn(
            world,
            server,
            RecordingApprovals(default="allow_once"),
            _bash(f"echo x > {world.outside}"),
        )
    assert world.outside.read_text() == "x\n"
    assert session.ctx.shells.planner is None
    assert session.gate.auto_allow is None
    assert not [e for e in events if isinstance(e, Notice) and e.topic == "sandbox"]


def test_options_come_from_the_settings(tmp_path: Path, world: World) -> None:
    settings = Settings.model_validate(
        {
            "permissions": {"additional_directories": ["../data", "/abs/shared"]},
            "shell": {"sandbox": {"enabled": True, "allow_network": True, "auto_allow": True,
                                  "extra_writable": ["build-cache", "~/notes"]}},
        }
    )  # fmt: skip
    options = sandbox_options(settings, world.project)
    assert (options.enabled, options.allow_network, options.auto_allow) == (True, True, True)
    assert options.root == world.project
    assert options.additional_directories == (world.project / "../data", Path("/abs/shared"))
    assert options.extra_writable == (world.project / "build-cache", Path.home() / "notes")
    assert options.temp_dir == tmp_path / "tmp" / f"zengine-{os.getuid()}"  # private (issue 26)
    assert options.home == Path.home()
    assert not sandbox_options(Settings(), world.project).enabled
