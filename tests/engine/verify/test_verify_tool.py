"""The Verify tool and the slash commands through the engine: a Bash test run is not
evidence, a Verify run is recorded, survives in the log and comes back on resume; the
engine's runner goes through the chat's shell runner."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.engine.verify.conftest import drain, extension, last_user_text, open_chat
from zengine_jupyter.engine.tools import ShellRunner
from zengine_jupyter.engine.verify import ShellCheckRunner
from zengine_jupyter.protocol import CheckRecorded, CheckSpec, VerificationChanged
from zengine_jupyter.protocol._records import CheckLogRecord, ToolResultRecord
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall
from zengine_jupyter.verify import RunCheckOptions, run_check

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
    assert "badge not_applicable" in done.text  # no files changed in a turn
    assert approvals.asked == []  # the user's own command: no approval question
    assert provider.requests == []  # the model was never asked
    events = await drain(session, sub)
    recorded = [e for e in events if isinstance(e, CheckRecorded)]
    assert len(recorded) == 1
    assert recorded[0].turn_id is None  # not part of any turn


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
