"""The setup view's settings: the choice written with tomlkit (the user's file kept as it was),
and the cheap first-run check ``%load_ext`` makes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zengine_jupyter.config import provider_configured, write_provider_choice
from zengine_jupyter.protocol import SettingsFileError

MINE = """# my settings: keep this comment
[model]
main = "claude-sonnet-4-6"   # the usual one
fast = "claude-haiku-4-5"

[permissions]
allow = ["Bash(ls)"]
"""


def test_the_choice_keeps_the_file_and_drops_models_of_the_old_provider(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text(MINE)
    removed = write_provider_choice(
        path, kind="openai", base_url="http://localhost:1234/v1", model="qwen3"
    )
    assert removed == ["model.fast"]
    text = path.read_text()
    assert text.startswith('# my settings: keep this comment\n[model]\nmain = "qwen3"')
    assert 'allow = ["Bash(ls)"]' in text
    assert '[provider]\nkind = "openai"\nbase_url = "http://localhost:1234/v1"\n' in text
    # the same provider again: nothing else is removed, the model changes
    path.write_text(text.replace('main = "qwen3"', 'main = "qwen3"\nfast = "llama3"'))
    assert write_provider_choice(path, kind="openai", base_url="http://localhost:1234/v1",
                                 model="llama3") == []  # fmt: skip
    assert 'fast = "llama3"' in path.read_text()
    # Anthropic's public endpoint: no base_url left behind
    write_provider_choice(path, kind="anthropic", base_url=None, model="claude-opus-4-8")
    assert "base_url" not in path.read_text()
    assert 'kind = "anthropic"' in path.read_text()


def test_a_missing_file_is_created_and_a_broken_one_is_left_alone(tmp_path: Path) -> None:
    new = tmp_path / "cfg" / "settings.toml"
    assert write_provider_choice(new, kind="anthropic", base_url=None, model="m") == []
    assert new.read_text() == '[provider]\nkind = "anthropic"\n\n[model]\nmain = "m"\n'
    broken = tmp_path / "broken.toml"
    broken.write_text("[provider\nkind = ")
    with pytest.raises(SettingsFileError, match="not changed"):
        write_provider_choice(broken, kind="openai", base_url="http://h/v1", model="m")
    assert broken.read_text() == "[provider\nkind = "


def _home(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"ZENGINE_HOME": str(home)}


def test_first_run_check(tmp_path: Path) -> None:
    env = _home(tmp_path)
    home = Path(env["ZENGINE_HOME"])
    project = tmp_path / "proj"
    (project / ".z-engine").mkdir(parents=True)
    assert provider_configured(project, env) is False
    assert provider_configured(project, {**env, "ANTHROPIC_API_KEY": "  "}) is False
    assert provider_configured(project, {**env, "OPENAI_API_KEY": "k"}) is True
    assert provider_configured(project, {**env, "ZENGINE_CASSETTE": "q.jsonl"}) is True
    # the finder's ports alone configure nothing
    (home / "settings.toml").write_text("[provider]\nlmstudio_port = 4321\n")
    assert provider_configured(project, env) is False
    (home / "auth.json").write_text(json.dumps({"version": 1, "hosts": {}}))
    assert provider_configured(project, env) is False
    (home / "auth.json").write_text(json.dumps({"version": 1, "hosts": {"h": {"api_key": "k"}}}))
    assert provider_configured(project, env) is True
    (home / "auth.json").unlink()
    (project / ".z-engine" / "settings.local.toml").write_text('[provider]\ncassette = "c"\n')
    assert provider_configured(project, env) is True
    (project / ".z-engine" / "settings.local.toml").unlink()
    (home / "settings.toml").write_text('[provider]\nbase_url = "http://localhost:11434/v1"\n')
    assert provider_configured(project, env) is True
