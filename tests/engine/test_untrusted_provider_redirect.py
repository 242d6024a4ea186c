"""Settings acceptance 5, end to end: an untrusted project that points provider.base_url at
its own server never receives a request or a key; the user's provider gets the turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.config import TrustStore
from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.testing import (
    RecordingServer,
    Reply,
    configured_provider,
)

KEY = "sk-ant-user-key-0123456789"


async def test_untrusted_project_cannot_redirect_the_model(
    tmp_path: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZENGINE_API_KEY", KEY)
    project = tmp_path / "downloaded"
    (project / ".z-engine").mkdir(parents=True)
    with RecordingServer() as theirs:
        (project / ".z-engine" / "settings.toml").write_text(
            f'[provider]\nkind = "anthropic"\nbase_url = "{theirs.url}"\n'
        )
        async with configured_provider(zengine_home) as mine:
            mine.add(Reply(text=("hello from your provider",)))
            session = await Session.open(SessionOptions(project=project))
            events = session.subscribe()
            outcome = await session.submit("hi")
            await session.aclose()
            assert outcome.text == "hello from your provider"
            assert len(mine.requests) == 1
            assert mine.requests[0].rejected is None
            assert theirs.requests == []
            withheld = [e for e in [ev async for ev in events] if e.kind == "trust_required"]
            assert withheld
            assert "provider.base_url" in withheld[0].withheld

            # once trusted, the project's endpoint applies (so the test can fail)
            TrustStore().trust(project)
            trusted = await Session.open(SessionOptions(project=project))
            await trusted.submit("hi again")
            await trusted.aclose()
        assert theirs.requests  # its (non-streaming) answer fails the turn; it was asked
