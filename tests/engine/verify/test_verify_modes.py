"""The stop boundary through the engine: auto sends a failing check back and ends Verified
once the model fixes it; strict stops after max_continuations with Failed; an untrusted
project's own check never runs."""

from __future__ import annotations

from pathlib import Path

from tests.engine.verify.conftest import (
    drain,
    extension,
    last_user_text,
    open_chat,
    write_settings,
)
from zengine_jupyter.config import TrustStore
from zengine_jupyter.protocol import CheckRecorded, TrustRequired, VerificationChanged
from zengine_jupyter.protocol._records import CheckLogRecord
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall

BREAK = {"path": "calc.py", "old_string": "a + b", "new_string": "a - b"}
FIX = {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}


def check_records(session_id: str) -> list[CheckLogRecord]:
    snapshot = SessionStore().read(session_id)
    return [r for r in snapshot.state.transcript if isinstance(r, CheckLogRecord)]


async def test_auto_sends_the_failure_back_and_ends_verified(
    calc: Path, provider: ProviderServer, zengine_home: Path
) -> None:
    write_settings(zengine_home, provider, '[verification]\nmode = "auto"\n')
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


async def test_strict_stops_after_max_continuations_failed(
    calc: Path, provider: ProviderServer, zengine_home: Path
) -> None:
    write_settings(zengine_home, provider, '[verification]\nmode = "strict"\n')
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
    assert approvals.asked.count("Verify") == 1  # the unknown id was refused before asking
    records = [r.check for r in check_records(session.id)]
    assert [(r.check_id, r.command) for r in records] == [
        ("python:pytest", ["python", "-m", "pytest"])  # the discovered check, not the project's
    ]
    assert "Verify" in approvals.asked  # through the gate, kind execute
    asked = next(r for r in approvals.requests if r.tool == "Verify")
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
