"""Verification checks run inside the sandbox when it is enabled, like the agent's commands:
a check that writes outside the project cannot (real bubblewrap, through a chat's /verify and
its recorded check); with the sandbox off the same check does write there."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.protocol import CheckLogRecord, CheckRecorded
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import RecordingApprovals, configured_provider
from zengine_jupyter.testing.components import require_component


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project under ``tmp_path`` with a private temporary folder, so the sandbox's
    writable temp area does not hold the project's parent (which stands for "outside")."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", None)
    root = tmp_path / "proj"
    root.mkdir()
    return root


def _checks(outside: Path) -> str:
    return (
        "[[verification.checks]]\n"
        'id = "user:outside"\nkind = "test"\n'
        f'command = ["sh", "-c", "echo out > {outside}"]\n'
        "[[verification.checks]]\n"
        'id = "user:inside"\nkind = "test"\n'
        'command = ["sh", "-c", "echo in > inside.txt"]\n'
    )


async def _verify(project: Path, home: Path, sandbox: str) -> dict[str, tuple[bool, str]]:
    """Run both checks with ``/verify``; each check's (passed, output) as published and
    recorded in the chat's log."""
    outside = project.parent / "outside.txt"
    async with configured_provider(home, f"{_checks(outside)}[shell.sandbox]\n{sandbox}\n"):
        session = await Session.open(
            SessionOptions(project=project, approvals=RecordingApprovals())
        )
        events = session.subscribe()
        await session.submit("/verify user:outside user:inside")
        await session.aclose()
    published = {e.check_id: e.passed async for e in events if isinstance(e, CheckRecorded)}
    transcript = SessionStore().read(session.id).state.transcript
    logged = [r.check for r in transcript if isinstance(r, CheckLogRecord)]
    assert published == {c.check_id: c.passed for c in logged}
    return {c.check_id: (c.passed, c.output_tail) for c in logged}


async def test_a_check_cannot_write_outside_the_project_in_the_sandbox(
    project: Path, zengine_home: Path
) -> None:
    require_component("bwrap")
    recorded = await _verify(project, zengine_home, "enabled = true")
    passed, output = recorded["user:outside"]
    assert not passed
    assert "Read-only file system" in output
    assert not (project.parent / "outside.txt").exists()
    assert recorded["user:inside"][0]
    assert (project / "inside.txt").read_text() == "in\n"


async def test_without_the_sandbox_the_same_check_writes_outside(
    project: Path, zengine_home: Path
) -> None:
    """The control: the test above fails if checks bypass the sandbox's wrap."""
    recorded = await _verify(project, zengine_home, "enabled = false")
    assert recorded["user:outside"][0]
    assert (project.parent / "outside.txt").read_text() == "out\n"
