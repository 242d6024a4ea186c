"""Verification wired into a chat, through the engine and the local provider server.

auto sends a failing check's output back and the turn ends Verified once the model fixes it;
strict stops after max_continuations with Failed; an untrusted project's own check never
runs; a Bash test run is not evidence while a Verify run is recorded and replayed; /checks,
/verify; the engine's runner goes through the chat's shell runner.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from zengine_jupyter.config import TrustStore
from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.engine.tools import ShellRunner
from zengine_jupyter.engine.verify import ShellCheckRunner, VerificationExtension
from zengine_jupyter.host import Fingerprint, workspace_fingerprint
from zengine_jupyter.protocol import (
    CheckRecorded,
    CheckSpec,
    EngineEvent,
    ToolCallFinished,
    TrustRequired,
    VerificationChanged,
    VerificationRecord,
)
from zengine_jupyter.protocol._records import CheckLogRecord, ToolResultRecord
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import (
    ProviderServer,
    RecordingApprovals,
    Reply,
    ScriptedToolCall,
    configured_provider,
    write_provider_settings,
)
from zengine_jupyter.verify import RunCheckOptions, run_check


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    """``add`` correct, one pytest test for it."""
    root = tmp_path / "calc"
    root.mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "calc"\nversion = "0"\n\n[tool.pytest.ini_options]\n'
        'testpaths = ["."]\naddopts = "-p no:cacheprovider"\n'
    )
    (root / ".gitignore").write_text("__pycache__/\n")
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    return root


@pytest.fixture
async def provider(zengine_home: Path) -> AsyncIterator[ProviderServer]:
    async with configured_provider(zengine_home) as server:
        yield server


async def open_chat(project: Path, **options: Any) -> tuple[Session, RecordingApprovals]:
    approvals = RecordingApprovals(default="allow_once")
    session = await Session.open(SessionOptions(project=project, approvals=approvals, **options))
    return session, approvals


def extension(session: Session) -> VerificationExtension:
    return next(e for e in session.extensions if isinstance(e, VerificationExtension))


async def drain(session: Session, sub: Any) -> list[EngineEvent]:
    await session.aclose()
    return [event async for event in sub]


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last user message of a recorded Anthropic request."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(str(part.get("text", part.get("content", ""))) for part in content)


BREAK = {"path": "calc.py", "old_string": "a + b", "new_string": "a - b"}
FIX = {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}


def check_records(session_id: str) -> list[CheckLogRecord]:
    snapshot = SessionStore().read(session_id)
    return [r for r in snapshot.state.transcript if isinstance(r, CheckLogRecord)]


async def test_auto_sends_the_failure_back_and_ends_verified(
    calc: Path, provider: ProviderServer, zengine_home: Path
) -> None:
    write_provider_settings(zengine_home, provider.base_url, '[verification]\nmode = "auto"\n')
    TrustStore().trust(calc)
    provider.add(
        Reply(tool_calls=(ScriptedToolCall("Read", {"path": "calc.py"}),)),
        Reply(tool_calls=(ScriptedToolCall("Edit", BREAK),)),
        Reply(text=("Changed add.",)),
        Reply(tool_calls=(ScriptedToolCall("Read", {"path": "calc.py"}),)),
        Reply(tool_calls=(ScriptedToolCall("Edit", FIX),)),
        Reply(text=("Fixed the sign.",)),
    )
    session, _ = await open_chat(calc)
    sub = session.subscribe()
    outcome = await session.submit("change add")
    assert outcome.status == "completed"
    assert outcome.text == "Fixed the sign."
    assert len(provider.requests) == 6
    sent_back = last_user_text(provider.requests[3].json)
    assert "[verification, mode auto]" in sent_back
    assert "python:pytest" in sent_back
    assert "assert -1 == 5" in sent_back
    records = [r.check for r in check_records(session.id)]
    assert [(r.check_id, r.passed) for r in records] == [
        ("python:pytest", False),
        ("python:pytest", True),
    ]
    assert records[0].counts.failed == 1
    assert records[1].counts.passed == 1
    assert (calc / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    events = await drain(session, sub)
    kinds = [e.kind for e in events if isinstance(e, CheckRecorded | VerificationChanged)]
    assert kinds[0] == "check_recorded"
    assert kinds[1] == "verification_changed"
    badges = [e for e in events if isinstance(e, VerificationChanged)]
    assert badges[-1].badge == "verified"
    assert any(b.badge == "failed" for b in badges)
    # the log holds each badge as the event said it (a view rebuilt from it shows the same)
    # and each Edit's diff as tool_call_finished carried it
    transcript = SessionStore().read(session.id).state.transcript
    logged = [(r.badge, r.reason) for r in transcript if isinstance(r, VerificationRecord)]
    assert logged == [(b.badge, b.reason) for b in badges]
    diffs = [r.diff for r in transcript if isinstance(r, ToolResultRecord) and r.name == "Edit"]
    finished = {e.call_id: e.diff for e in events if isinstance(e, ToolCallFinished)}
    edits = [r for r in transcript if isinstance(r, ToolResultRecord) and r.name == "Edit"]
    assert diffs == [finished[r.tool_call_id] for r in edits]
    assert all(d and "@@" in d and "-    return a + b" in d for d in diffs[:1]), diffs


async def test_strict_stops_after_max_continuations_failed(
    calc: Path, provider: ProviderServer, zengine_home: Path
) -> None:
    write_provider_settings(zengine_home, provider.base_url, '[verification]\nmode = "strict"\n')
    TrustStore().trust(calc)
    provider.add(
        Reply(tool_calls=(ScriptedToolCall("Read", {"path": "calc.py"}),)),
        Reply(tool_calls=(ScriptedToolCall("Edit", BREAK),)),
        *(Reply(text=(f"I am done ({n}).",)) for n in range(4)),
    )
    session, _ = await open_chat(calc)
    sub = session.subscribe()
    outcome = await session.submit("change add")
    assert outcome.status == "completed"
    assert outcome.text == "I am done (3)."
    assert len(provider.requests) == 6  # the default max_continuations: 3 send-backs
    for request in provider.requests[3:6]:
        assert "[verification, mode strict]" in last_user_text(request.json)
    records = check_records(session.id)
    assert len(records) == 1  # the failing record stays fresh: nothing to run again
    events = await drain(session, sub)
    badges = [e for e in events if isinstance(e, VerificationChanged)]
    assert badges[-1].badge == "failed"
    assert "python:pytest" in badges[-1].reason


async def test_untrusted_project_check_never_runs(
    calc: Path, provider: ProviderServer, zengine_home: Path
) -> None:
    (calc / ".z-engine").mkdir()
    (calc / ".z-engine" / "settings.toml").write_text(
        '[verification]\nmode = "auto"\nauto_checks = ["proj:marker"]\n'
        '[[verification.checks]]\nid = "proj:marker"\nkind = "test"\ncommand = "touch marker"\n'
        '[[verification.checks]]\nid = "python:pytest"\nkind = "test"\n'
        'command = "touch replaced-marker"\n'
    )
    provider.add(
        Reply(tool_calls=(ScriptedToolCall("Read", {"path": "calc.py"}),)),
        Reply(tool_calls=(ScriptedToolCall("Edit", BREAK),)),
        Reply(tool_calls=(ScriptedToolCall("Verify", {"checks": ["proj:marker"]}),)),
        Reply(tool_calls=(ScriptedToolCall("Verify", {}),)),
        Reply(text=("Done.",)),
    )
    session, approvals = await open_chat(calc)
    sub = session.subscribe()
    assert not session.settings.trusted
    assert [c.id for c in extension(session).state.checks] == ["python:pytest"]
    outcome = await session.submit("change add")
    assert outcome.status == "completed"
    assert len(provider.requests) == 5  # auto ran nothing, so nothing was sent back
    unknown = last_user_text(provider.requests[3].json)
    assert "unknown check(s) proj:marker" in unknown
    assert approvals.tools.count("Verify") == 1  # the unknown id was refused before asking
    records = [r.check for r in check_records(session.id)]
    assert [(r.check_id, r.command) for r in records] == [
        ("python:pytest", ["python", "-m", "pytest"])  # the discovered check, not the project's
    ]
    assert "Verify" in approvals.tools  # through the gate, kind execute
    asked = next(r for r in approvals.asked if r.tool == "Verify")
    assert asked.command == "python -m pytest"  # the user sees what will run
    assert asked.suggested_rule == "Verify"  # always-allow writes a rule that covers Verify
    listing = await session.submit("/checks")
    assert "proj:marker" not in listing.text
    assert "mode auto" in listing.text
    events = await drain(session, sub)
    assert not (calc / "marker").exists()
    assert not (calc / "replaced-marker").exists()
    trust = next(e for e in events if isinstance(e, TrustRequired))
    assert any(key.startswith("verification.checks") for key in trust.withheld)
    assert [e.badge for e in events if isinstance(e, VerificationChanged)][-1] == "failed"


async def test_trusting_the_folder_brings_its_checks_and_off_mode_is_quiet(
    calc: Path, provider: ProviderServer, zengine_home: Path
) -> None:
    (calc / ".z-engine").mkdir()
    (calc / ".z-engine" / "settings.toml").write_text(
        '[verification]\nmode = "off"\n'
        '[[verification.checks]]\nid = "proj:marker"\nkind = "test"\ncommand = "touch marker"\n'
    )
    provider.add(
        Reply(tool_calls=(ScriptedToolCall("Read", {"path": "calc.py"}),)),
        Reply(tool_calls=(ScriptedToolCall("Edit", BREAK),)),
        Reply(text=("Done.",)),
    )
    session, _ = await open_chat(calc)
    sub = session.subscribe()
    assert "proj:marker" not in (await session.submit("/checks")).text
    await session.submit("/trust")
    assert "proj:marker" in (await session.submit("/checks")).text
    outcome = await session.submit("change add")
    assert outcome.status == "completed"
    assert len(provider.requests) == 3
    events = await drain(session, sub)
    badges = [e for e in events if isinstance(e, VerificationChanged)]
    assert [(b.badge, b.reason) for b in badges] == [("not_applicable", "verification is off")]
    assert not (calc / "marker").exists()
    assert check_records(session.id) == []


EDIT = {"path": "calc.py", "old_string": "a + b", "new_string": "b + a"}
EDIT_BACK = {"path": "calc.py", "old_string": "b + a", "new_string": "a + b"}


async def test_bash_run_is_not_evidence_verify_is_recorded_and_replayed(
    calc: Path, provider: ProviderServer
) -> None:
    pytest_cmd = f"{sys.executable} -m pytest -q"
    provider.add(
        Reply(tool_calls=(ScriptedToolCall("Read", {"path": "calc.py"}),)),
        Reply(tool_calls=(ScriptedToolCall("Edit", EDIT),)),
        Reply(tool_calls=(ScriptedToolCall("Bash", {"command": pytest_cmd}),)),
        Reply(text=("Tests pass.",)),
        # second turn: another change, then a recorded run
        Reply(tool_calls=(ScriptedToolCall("Read", {"path": "calc.py"}),)),
        Reply(tool_calls=(ScriptedToolCall("Edit", EDIT_BACK),)),
        Reply(tool_calls=(ScriptedToolCall("Verify", {}),)),
        Reply(text=("Verified.",)),
    )
    session, _ = await open_chat(calc)
    sub = session.subscribe()
    first = await session.submit("swap the operands")
    assert first.status == "completed"
    assert "1 passed" in last_user_text(provider.requests[3].json)  # Bash really ran pytest
    assert extension(session).state.records == []  # ...but nothing was recorded
    second = await session.submit("swap them back")
    assert second.status == "completed"
    verify_result = last_user_text(provider.requests[7].json)
    assert "PASS python:pytest" in verify_result
    assert "badge now: verified" in verify_result
    chat_id = session.id
    events = await drain(session, sub)

    badges = [(e.turn_id, e.badge) for e in events if isinstance(e, VerificationChanged)]
    assert badges[0] == (first.turn_id, "unverified")
    assert badges[-1] == (second.turn_id, "verified")
    ordered = [e for e in events if isinstance(e, CheckRecorded | VerificationChanged)]
    recorded_at = next(i for i, e in enumerate(ordered) if isinstance(e, CheckRecorded))
    assert isinstance(ordered[recorded_at + 1], VerificationChanged)

    transcript = SessionStore().read(chat_id).state.transcript
    logged = [r.check for r in transcript if isinstance(r, CheckLogRecord)]
    assert len(logged) == 1
    assert logged[0].check_id == "python:pytest"
    assert logged[0].passed
    assert logged[0].counts.passed == 1
    assert Path(logged[0].artifact or "").read_text().count("1 passed") == 1
    verify_calls = [r for r in transcript if isinstance(r, ToolResultRecord) and r.name == "Verify"]
    assert len(verify_calls) == 1

    resumed, _ = await open_chat(calc, session_id=chat_id)
    assert extension(resumed).state.records == logged
    listing = await resumed.submit("/checks")
    assert "python:pytest" in listing.text
    await resumed.aclose()


async def test_slash_verify_runs_and_records(calc: Path, provider: ProviderServer) -> None:
    session, approvals = await open_chat(calc)
    sub = session.subscribe()
    unknown = await session.submit("/verify nonesuch")
    assert "unknown check(s) nonesuch" in unknown.text
    done = await session.submit("/verify python:pytest")
    assert done.text.startswith("PASS python:pytest")
    assert "badge" not in done.text  # the badge is the event's, shown once by each view
    assert approvals.asked == []  # the user's own command: no approval question
    assert provider.requests == []  # the model was never asked
    events = await drain(session, sub)
    recorded = [e for e in events if isinstance(e, CheckRecorded)]
    assert len(recorded) == 1
    assert recorded[0].turn_id is None  # not part of any turn
    (badge,) = [e for e in events if isinstance(e, VerificationChanged)]
    assert badge.badge == "not_applicable"  # no files changed in a turn


async def test_shell_runner_runs_in_the_check_folder_with_a_deadline(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "sub dir").mkdir(parents=True)
    shells = ShellRunner(root, tmp_path / "artifacts")
    options = RunCheckOptions(
        project_root=root, artifacts_dir=tmp_path / "records", runner=ShellCheckRunner(shells)
    )
    here = CheckSpec(id="t:pwd", kind="test", command=["pwd"], cwd="sub dir")
    record = await run_check(here, options)
    assert record.passed
    assert record.output_tail.strip() == str((root / "sub dir").resolve())
    slow = CheckSpec(id="t:slow", kind="test", command="sleep 5")
    stopped = await run_check(slow, RunCheckOptions(project_root=root, artifacts_dir=tmp_path,
                                                    runner=ShellCheckRunner(shells),
                                                    timeout_s=0.3))  # fmt: skip
    assert not stopped.passed
    assert stopped.exit_code is None
    assert "[stopped: still running after 0.3 s]" in stopped.output_tail
    await shells.aclose()


async def test_the_baseline_is_walked_beside_the_request_but_before_the_first_tool(
    tmp_path: Path, provider: ProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn's baseline fingerprint is walked while the first request goes out (issue 25:
    off the request's path), but always finished before the first tool call runs: a Bash
    command that writes a file (no ``changed_paths``) still counts as a change. The walk here
    first waits (up to 2 s) for the command's file: it can only appear if the command ran
    before the baseline was done, and then the badge would say that nothing changed."""
    walked: list[bool] = []

    async def slow_walk(root: Path) -> Fingerprint:
        if not walked:  # the baseline's walk (the stop's own walk is not delayed)
            for _ in range(40):
                if (root / "made.txt").exists():
                    break
                await asyncio.sleep(0.05)
        walked.append((root / "made.txt").exists())
        return await workspace_fingerprint(root)

    where = "zengine_jupyter.engine.verify._extension.workspace_fingerprint"
    monkeypatch.setattr(where, slow_walk)
    project = tmp_path / "plain"
    project.mkdir()
    (project / "notes.txt").write_text("hello\n")
    provider.add(
        Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "echo x > made.txt"}),)),
        Reply(text=("Made it.",)),
    )
    session, _ = await open_chat(project)
    sub = session.subscribe()
    outcome = await session.submit("make a file")
    assert outcome.status == "completed"
    assert (project / "made.txt").read_text() == "x\n"
    events = await drain(session, sub)
    assert walked[0] is False  # the baseline saw the project before the command ran
    badges = [(e.badge, e.reason) for e in events if isinstance(e, VerificationChanged)]
    assert badges, "no badge"
    assert badges[-1][0] != "not_applicable", badges  # the command's file is a change
