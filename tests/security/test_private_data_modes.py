"""Issue 26, per-user isolation (file modes): on a shared hub another user must not read my chats,
keys, trust, checkpoints, logs or artifacts. Every file the engine writes in the data folder is
0600 and every folder 0700 whatever the umask (hubs often run with 022), and nothing the engine
writes to the temporary folder is readable by others."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from zengine_jupyter.config import HOME_ENV, TrustStore, add_rule_to_layer, data_dir
from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.llm import AuthStore, CatalogCache, Secret
from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall, write_provider_settings

SAMPLE = Path(__file__).parents[1] / "fixtures" / "llm" / "models-dev-sample.json"


@pytest.fixture
def shared_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    """A data folder that does not exist yet, a world-writable temporary folder as ``$TMPDIR``
    (like /tmp), and the umask a hub's single-user server usually has (022)."""
    home = tmp_path / "alice" / "zengine"
    temp = tmp_path / "tmp"
    temp.mkdir()
    temp.chmod(0o1777)
    monkeypatch.setenv(HOME_ENV, str(home))
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() caches its answer
    old = os.umask(0o022)
    try:
        yield home, temp
    finally:
        os.umask(old)


def _open_to_others(root: Path) -> list[str]:
    """Every entry under ``root`` (root included) that grants group or others any permission."""
    found = []
    for entry in (root, *root.rglob("*")):
        mode = entry.lstat().st_mode
        if not stat.S_ISLNK(mode) and mode & 0o077:
            found.append(f"{oct(mode & 0o777)} {entry.relative_to(root.parent)}")
    return found


async def test_another_user_cannot_read_my_chats_keys_trust_checkpoints_or_artifacts(
    shared_hub: tuple[Path, Path], tmp_path: Path
) -> None:
    """Attack: another user on the same hub lists and reads my data folder (chat logs, the
    checkpoint repository with my project's files, bash output, stored API keys, trusted
    folders, the catalog cache) because the engine created them 0644/0755 under umask 022."""
    home, temp = shared_hub
    project = tmp_path / "proj"
    project.mkdir()
    (project / "notes.txt").write_text("secret plan\n")
    before = set(temp.rglob("*"))
    async with ProviderServer() as server:
        home.mkdir(parents=True)  # 0755, as an older version or a hand-made one would be
        write_provider_settings(home, server.base_url).chmod(0o600)  # the test's, not the engine's
        server.add(
            Reply(tool_calls=(ScriptedToolCall("Write", {"path": "plan.txt", "content": "x\n"}),)),
            Reply(tool_calls=(ScriptedToolCall("Bash", {"command": "cat notes.txt"}),)),
            Reply.answer("done"),
        )
        session = await Session.open(
            SessionOptions(project=project, approvals=FixedApprovals(allow=True))
        )
        try:
            assert (await session.submit("write a plan")).status == "completed"
        finally:
            await session.aclose()
    AuthStore().set("api.anthropic.com", Secret("sk-ant-do-not-share"))
    TrustStore().trust(project)
    assert add_rule_to_layer("user", "Bash(ls:*)")  # the user's settings file, in the data folder
    assert CatalogCache(data_dir(), url="http://127.0.0.1:9/api.json")._store(SAMPLE.read_bytes())

    # the real paths ran: a chat log, a checkpoint repository, an artifact, keys and trust exist
    assert list((home / "sessions").rglob("log.jsonl"))
    assert (home / "checkpoints").is_dir()
    assert list((home / "sessions").rglob("artifacts/bash-*.log"))
    assert (home / "auth.json").is_file()
    assert (home / "trust.json").is_file()
    assert (home / "cache" / "models-dev.json").is_file()
    assert _open_to_others(home) == []
    leaked = [
        f"{oct(p.lstat().st_mode & 0o777)} {p}"
        for p in set(temp.rglob("*")) - before
        if p.lstat().st_mode & 0o077
    ]
    assert leaked == []


def test_an_existing_loose_auth_file_and_data_folder_are_tightened(
    shared_hub: tuple[Path, Path],
) -> None:
    """Attack: a data folder and auth.json left 0755/0644 (by an older version, a copy, or an
    editor) keep exposing my API keys to every user on the hub after the next write."""
    home, _ = shared_hub
    home.mkdir(parents=True)
    auth = home / "auth.json"
    auth.write_text(json.dumps({"version": 1, "hosts": {}}))
    assert stat.S_IMODE(home.stat().st_mode) == 0o755
    assert stat.S_IMODE(auth.stat().st_mode) == 0o644
    AuthStore().set("api.anthropic.com", Secret("sk-ant-do-not-share"))
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert stat.S_IMODE(home.stat().st_mode) == 0o700


def test_reading_keys_from_a_loose_auth_file_makes_it_private(
    shared_hub: tuple[Path, Path],
) -> None:
    """Attack: auth.json copied in with mode 0644 (or edited by hand) stays readable by every
    user on the hub for as long as the engine only reads keys from it and never writes it."""
    home, _ = shared_hub
    home.mkdir(parents=True)
    auth = home / "auth.json"
    auth.write_text(json.dumps({"version": 1, "hosts": {"api.example.com": {"api_key": "sk-1"}}}))
    assert stat.S_IMODE(auth.stat().st_mode) == 0o644
    key = AuthStore().get("api.example.com")
    assert key is not None
    assert key.reveal() == "sk-1"
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
