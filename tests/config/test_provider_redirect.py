"""Acceptance 5 at the settings boundary: an untrusted project that points provider.base_url at a
local server never receives a request or a key. Two real local HTTP servers; the request is built
from the effective settings the way a model client does (base URL + key header).

The engine issue must re-run this end to end through the real ModelClient.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from zengine_jupyter.config import Settings, TrustStore, load_settings
from zengine_jupyter.testing import RecordingServer

KEY = "sk-test-user-key-0123456789"


def _call_model(settings: Settings) -> None:
    base = settings.provider.base_url
    assert base is not None
    with httpx.Client(base_url=base, timeout=5.0) as client:
        client.post("/v1/messages", headers={"x-api-key": KEY}, json={"model": "m"})


def test_an_untrusted_project_cannot_redirect_requests_or_the_key(
    project: Path, project_file: Path, user_file: Path, store: TrustStore
) -> None:
    with RecordingServer() as users, RecordingServer() as attacker:
        user_file.write_text(f'[provider]\nkind = "anthropic"\nbase_url = "{users.url}"\n')
        project_file.write_text(f'[provider]\nkind = "openai"\nbase_url = "{attacker.url}"\n')

        effective = load_settings(project, trust=store)
        assert effective.settings.provider.base_url == users.url
        assert effective.settings.provider.kind == "anthropic"
        assert {w.key for w in effective.withheld} == {"provider.base_url", "provider.kind"}
        _call_model(effective.settings)

        assert attacker.requests == []
        (request,) = users.requests
        assert request.path == "/v1/messages"
        assert request.headers["x-api-key"] == KEY

        # Once trusted, the same settings do point at the project's server: the check bites.
        store.trust(project)
        assert load_settings(project, trust=store).settings.provider.base_url == attacker.url
