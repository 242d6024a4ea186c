"""Reloading settings under an open chat (issue 21.5): which files are watched, how a change is
noticed (stat, then hash), a broken file keeping its last good content, and the change list."""

from __future__ import annotations

import os
from pathlib import Path

from zengine_jupyter.config import (
    SettingsFiles,
    TrustStore,
    load_settings,
    reload_settings,
    settings_changes,
    settings_files,
)

SERVER = '[mcp.servers.a]\ncommand = "srv"\n'


def user_file(home: Path, text: str) -> Path:
    path = home / "settings.toml"
    path.write_text(text)
    return path


def test_the_watched_files_are_every_layer_and_trust(zengine_home: Path, tmp_path: Path) -> None:
    files = settings_files(tmp_path)
    assert files == [
        zengine_home / "settings.toml",
        zengine_home / "config.toml",
        tmp_path / ".z-engine" / "settings.toml",
        tmp_path / ".z-engine" / "config.toml",
        tmp_path / ".z-engine" / "settings.local.toml",
        zengine_home / "trust.json",
    ]


def test_a_change_is_noticed_and_a_touch_is_not(zengine_home: Path, tmp_path: Path) -> None:
    path = user_file(zengine_home, SERVER)
    files = SettingsFiles(settings_files(tmp_path))
    assert files.changed() == []
    os.utime(path, ns=(1, 1))  # the stat moved, the content did not
    assert files.changed() == []
    path.write_text(SERVER + 'args = ["x"]\n')
    assert files.changed() == [path]
    assert files.changed() == []  # seen now
    local = tmp_path / ".z-engine" / "settings.local.toml"
    local.parent.mkdir()
    local.write_text("")
    assert files.changed() == [local]  # a new file counts
    path.unlink()
    assert files.changed() == [path]  # and a removed one


def test_a_broken_file_keeps_its_last_good_content(zengine_home: Path, tmp_path: Path) -> None:
    path = user_file(zengine_home, '[provider]\nbase_url = "http://127.0.0.1:1"\n' + SERVER)
    before = load_settings(tmp_path)
    path.write_text(SERVER + "[mcp.servers.a.bogus]\n")  # an unknown key
    after, kept = reload_settings(before)
    assert list(after.settings.mcp.servers) == ["a"]
    assert after.settings.provider.base_url == "http://127.0.0.1:1"
    assert after.issues == ()
    assert after.provider_issues == ()  # the last good destination stays: no stopped client
    (issue,) = kept
    assert issue.file == str(path)
    assert issue.key == "mcp.servers.a.bogus"
    assert "kept" in issue.describe("kept the last good settings of this file")
    path.write_text("[mcp.servers.a\n")  # not TOML at all: the same
    again, kept = reload_settings(after)
    assert list(again.settings.mcp.servers) == ["a"]
    assert kept[0].line == 1
    path.write_text('[mcp.servers.b]\ncommand = "other"\n')  # fixed: applies
    fixed, kept = reload_settings(again)
    assert list(fixed.settings.mcp.servers) == ["b"]
    assert kept == ()


def test_a_file_broken_from_the_start_is_still_skipped(zengine_home: Path, tmp_path: Path) -> None:
    user_file(zengine_home, "[mcp.servers.a\n")
    before = load_settings(tmp_path)
    after, kept = reload_settings(before)
    assert kept == ()  # nothing good to keep
    assert [issue.layer for issue in after.issues] == ["user"]


def test_a_damaged_trust_file_keeps_the_previous_trust(zengine_home: Path, tmp_path: Path) -> None:
    TrustStore().trust(tmp_path)
    before = load_settings(tmp_path)
    assert before.trusted
    (zengine_home / "trust.json").write_text("{not json")
    after, _ = reload_settings(before)
    assert after.trusted
    assert after.trust_problem is not None


def test_settings_changes_names_what_differs(zengine_home: Path, tmp_path: Path) -> None:
    path = user_file(zengine_home, "")
    before = load_settings(tmp_path)
    path.write_text(
        '[permissions]\nallow = ["Read"]\n[[hooks.stop]]\ncommand = ["true"]\n'
        '[lsp.servers.x]\ncommand = "x"\nfile_types = ["x"]\n[mcp]\nstartup_wait = 2\n'
        '[model]\nmain = "other"\n' + SERVER
    )
    after = load_settings(tmp_path)
    assert settings_changes(before, after) == [
        "permission rules re-applied",
        "hooks changed",
        "language server 'x' added",
        "mcp settings changed",
        "model settings changed",
    ]  # the MCP server itself is the MCP part's to name
    assert settings_changes(after, after) == []
    TrustStore().trust(tmp_path)
    assert settings_changes(after, load_settings(tmp_path)) == ["workspace trusted"]
