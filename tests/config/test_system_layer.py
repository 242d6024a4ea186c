"""The system layer (``/etc/zengine/settings.toml`` on a hub; ``$ZENGINE_SYSTEM_SETTINGS``
here): below the user's, and nothing above it loosens what it sets."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.config import SYSTEM_SETTINGS_ENV, TrustStore, load_settings
from zengine_jupyter.testing.cli import run_cli_sync

if TYPE_CHECKING:
    from pathlib import Path

ADMIN = """\
[permissions]
deny = ["Bash(curl:*)", "Read(/etc/shadow)"]
[shell.sandbox]
enabled = true
[agents]
session_cost_cap_usd = 5.0
[provider]
kind = "openai"
base_url = "http://llm.hub.internal/v1"
"""


@pytest.fixture
def system_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "etc" / "zengine" / "settings.toml"
    path.parent.mkdir(parents=True)
    path.write_text(ADMIN)
    monkeypatch.setenv(SYSTEM_SETTINGS_ENV, str(path))
    return path


def test_the_system_layer_applies_below_the_user(system_file: Path, project: Path) -> None:
    effective = load_settings(project)
    assert [layer.name for layer in effective.layers] == ["system"]
    assert effective.layers[0].path == system_file
    s = effective.settings
    assert s.shell.sandbox.enabled is True
    assert s.agents.session_cost_cap_usd == 5.0
    assert {"Bash(curl:*)", "Read(/etc/shadow)"} <= set(s.permissions.deny)
    assert effective.source_of("shell.sandbox.enabled") == "system"
    assert effective.locked == ()


def test_a_user_and_a_trusted_project_cannot_loosen_it(
    system_file: Path,
    project: Path,
    user_file: Path,
    project_file: Path,
    store: TrustStore,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The user turns the sandbox off, raises the cap, points the provider elsewhere; a trusted
    project and the environment try too: the system's values stay, and each try is named."""
    user_file.write_text(
        "[shell.sandbox]\nenabled = false\n[agents]\nsession_cost_cap_usd = 50.0\n"
        '[permissions]\nallow = ["Bash(curl:*)"]\n'
    )
    project_file.write_text('[provider]\nbase_url = "https://collector.example/v1"\n')
    store.trust(project)
    monkeypatch.setenv("ZENGINE_PROVIDER", "anthropic")
    effective = load_settings(project)
    s = effective.settings
    assert s.shell.sandbox.enabled is True
    assert s.agents.session_cost_cap_usd == 5.0
    assert (s.provider.kind, s.provider.base_url) == ("openai", "http://llm.hub.internal/v1")
    assert "Bash(curl:*)" in s.permissions.deny  # deny beats the user's allow at the gate
    assert {(lock.key, lock.overridden) for lock in effective.locked} == {
        ("shell.sandbox.enabled", "user"),
        ("agents.session_cost_cap_usd", "user"),
        ("provider.base_url", "project"),
        ("provider.kind", "env"),
    }
    for key in ("shell.sandbox.enabled", "provider.base_url", "agents.session_cost_cap_usd"):
        assert effective.source_of(key) == "system"


def test_a_user_may_lower_the_cap_and_add_caution(
    system_file: Path, project: Path, user_file: Path
) -> None:
    user_file.write_text(
        '[agents]\nsession_cost_cap_usd = 2.0\n[permissions]\ndeny = ["Bash(rm:*)"]\n'
    )
    effective = load_settings(project)
    assert effective.settings.agents.session_cost_cap_usd == 2.0
    assert effective.source_of("agents.session_cost_cap_usd") == "user"
    assert {"Bash(curl:*)", "Bash(rm:*)"} <= set(effective.settings.permissions.deny)
    assert effective.locked == ()


def test_a_broken_system_file_is_named(system_file: Path, project: Path) -> None:
    system_file.write_text("[shell.sandbox\nenabled = true\n")
    effective = load_settings(project)
    assert [issue.layer for issue in effective.issues] == ["system"]
    assert effective.issues[0].file == str(system_file)


def test_no_system_file_when_the_variable_is_empty(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SYSTEM_SETTINGS_ENV, "")
    assert load_settings(project).layers == ()


def test_zengine_settings_layers_shows_the_system_layer_and_its_locks(
    system_file: Path, project: Path, user_file: Path
) -> None:
    user_file.write_text("[shell.sandbox]\nenabled = false\n")
    done = run_cli_sync("settings", "--layers", cwd=project)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"system layer: {system_file}" in out
    assert "locked by the system layer: shell.sandbox.enabled (the user layer's value" in out
    assert "shell.sandbox.enabled = true  # system" in out
