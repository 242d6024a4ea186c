"""Issue 19.1: a provider setting that is present but invalid stops the chat; it never falls
through to the default (public) endpoint with the user's key.

The default endpoints are public hosts, so "nothing reached another host" is proven by pointing
every proxy variable at a local listener: a client that tried api.anthropic.com or
api.openai.com would connect to it (httpx honours HTTPS_PROXY for remote hosts).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.llm import FailingClient, ProviderOptions, build_client
from zengine_jupyter.protocol import ErrorEvent, ModelRequest
from zengine_jupyter.testing import ZENGINE, Listener

KEY = "sk-ant-user-key-0123456789abcdef"
_PROXY_VARS = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy")


def _proxied(monkeypatch: pytest.MonkeyPatch, listener: Listener) -> None:
    for var in _PROXY_VARS:
        monkeypatch.setenv(var, f"http://127.0.0.1:{listener.port}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.setenv("ZENGINE_API_KEY", KEY)


async def _one_turn(project: Path) -> tuple[str, str]:
    session = await Session.open(SessionOptions(project=project))
    try:
        outcome = await asyncio.wait_for(session.submit("hi"), 60)
    finally:
        await session.aclose()
    return outcome.status, outcome.reason or ""


async def test_base_url_without_a_scheme_does_not_send_the_key_to_the_default_host(
    tmp_path: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack: `base_url = "127.0.0.1:18407/v1"` (no scheme) in the user's settings made the
    layer skip, and the prompt and ZENGINE_API_KEY went to api.anthropic.com."""
    project = tmp_path / "proj"
    project.mkdir()
    settings = zengine_home / "settings.toml"
    settings.write_text('[provider]\nbase_url = "127.0.0.1:18407/v1"\n')
    with Listener.tcp() as proxy:
        _proxied(monkeypatch, proxy)
        status, reason = await _one_turn(project)
        assert proxy.accepted == 0
    assert status == "failed"
    assert "provider.base_url" in reason
    assert str(settings) in reason
    assert KEY not in reason


async def test_a_skipped_layer_that_sets_the_provider_stops_the_chat(
    tmp_path: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack: a valid base_url beside an unrelated typo (`mode = "yolo"`): the whole layer is
    skipped, so the chosen (local) provider is forgotten and the default host gets the key."""
    project = tmp_path / "proj"
    project.mkdir()
    (zengine_home / "settings.toml").write_text(
        '[provider]\nbase_url = "http://127.0.0.1:9/v1"\n[permissions]\nmode = "yolo"\n'
    )
    with Listener.tcp() as proxy:
        _proxied(monkeypatch, proxy)
        status, reason = await _one_turn(project)
        assert proxy.accepted == 0
    assert status == "failed"
    assert "provider" in reason
    assert "settings.toml" in reason


async def test_zengine_run_with_a_malformed_base_url_variable_opens_no_connection(
    tmp_path: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack: `ZENGINE_BASE_URL="not a url"` with ZENGINE_API_KEY set: the override was ignored
    and `zengine run` sent the prompt and the key to the default endpoint."""
    project = tmp_path / "proj"
    project.mkdir()
    with Listener.tcp() as proxy:
        _proxied(monkeypatch, proxy)
        env = dict(os.environ, ZENGINE_BASE_URL="not a url")
        proc = await asyncio.create_subprocess_exec(
            ZENGINE, "run", "--yes", "hello", cwd=project, env=env,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        _, err = await asyncio.wait_for(proc.communicate(), 90)
        assert proxy.accepted == 0
    text = err.decode()
    assert proc.returncode == 1, text
    assert "ZENGINE_BASE_URL" in text
    assert "provider.base_url" in text
    assert KEY not in text


async def test_an_invalid_provider_kind_variable_stops_the_chat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack: `ZENGINE_PROVIDER=antropic` (a typo) was ignored and the default applied."""
    project = tmp_path / "proj"
    project.mkdir()
    with Listener.tcp() as proxy:
        _proxied(monkeypatch, proxy)
        monkeypatch.setenv("ZENGINE_PROVIDER", "antropic")
        status, reason = await _one_turn(project)
        assert proxy.accepted == 0
    assert status == "failed"
    assert "ZENGINE_PROVIDER" in reason


async def test_an_untrusted_projects_broken_provider_table_does_not_stop_the_users_chat(
    tmp_path: Path, zengine_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hostile clone with a broken `[provider]` cannot block a chat: untrusted, its provider
    settings are withheld anyway, so skipping them changes no destination."""
    project = tmp_path / "clone"
    (project / ".z-engine").mkdir(parents=True)
    (project / ".z-engine" / "settings.toml").write_text('[provider]\nbase_url = "nope"\n')
    (zengine_home / "settings.toml").write_text('[provider]\nkind = "replay"\n')
    session = await Session.open(SessionOptions(project=project))
    try:
        assert "base_url" not in repr(session.client)
        assert "cassette" in repr(session.client)  # the user's own (replay) setting applies
    finally:
        await session.aclose()


async def test_build_client_refuses_options_marked_invalid() -> None:
    """The llm edge: options that carry an invalid provider setting never build a live client,
    whatever else they say (no fallback to the default endpoint)."""
    options = ProviderOptions(
        invalid=("provider.base_url in the environment (ZENGINE_BASE_URL) is not valid",)
    )
    client = build_client(options)
    assert isinstance(client, FailingClient)
    events = [e async for e in client.stream(ModelRequest(system="", messages=[]))]
    assert isinstance(events[0], ErrorEvent)
    assert "ZENGINE_BASE_URL" in events[0].message
    bad = build_client(ProviderOptions(base_url="127.0.0.1:18407/v1"))
    assert isinstance(bad, FailingClient)
    assert "provider.base_url" in bad.reason.message


def test_a_settings_file_that_does_not_parse_counts_its_provider_table(
    tmp_path: Path, zengine_home: Path
) -> None:
    """Attack: a TOML syntax error anywhere in the user's file drops its `[provider]` table,
    which would leave the default endpoint in charge; a file without one stays a notice."""
    from zengine_jupyter.config import load_settings

    settings = zengine_home / "settings.toml"
    settings.write_text('[provider]\nbase_url = "http://127.0.0.1:9/v1"\n[model]\nmain = \n')
    (issue, extra) = load_settings(None).issues
    assert "not valid TOML" in issue.reason
    assert load_settings(None).provider_issues == (extra,)
    assert extra.key == "provider"
    settings.write_text("[model]\nmain = \n")
    assert load_settings(None).issues
    assert load_settings(None).provider_issues == ()
