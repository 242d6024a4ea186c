"""Acceptance 6: writing an "always allow" rule keeps the file's comments and order."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.config import add_permission_rule, add_rule_to_layer, load_settings
from zengine_jupyter.protocol import SettingsFileError

COMMENTED = """\
# My settings. Keep this comment.

[model]
main = "claude-sonnet-4-5"  # the main model
effort = "high"

# Rules I trust:
[permissions]
mode = "default"
allow = [
    "Read",        # reading is fine
    "Bash(ls)",
]
deny = ["Bash(rm:*)"]

[appearance]
theme = "dark"
"""


def test_an_always_allow_rule_keeps_comments_and_order(user_file: Path) -> None:
    user_file.write_text(COMMENTED)
    assert add_permission_rule(user_file, "Bash(npm run test:*)") is True
    text = user_file.read_text()
    # every original line survives, in the same order
    lines = text.splitlines()
    positions = [lines.index(line) for line in COMMENTED.splitlines() if line.strip()]
    assert positions == sorted(positions)
    assert '"Bash(npm run test:*)"' in text
    assert text.index("Bash(ls)") < text.index("Bash(npm run test:*)") < text.index("deny")
    allow = load_settings(None).settings.permissions.allow
    assert allow == ["Read", "Bash(ls)", "Bash(npm run test:*)"]


def test_adding_the_same_rule_twice_changes_nothing(user_file: Path) -> None:
    user_file.write_text(COMMENTED)
    assert add_permission_rule(user_file, "Read") is False
    assert user_file.read_text() == COMMENTED


def test_a_rule_goes_into_the_chosen_layer_file(project: Path, local_file: Path) -> None:
    assert add_rule_to_layer("local", "Edit(src/*)", project=project) is True
    assert add_rule_to_layer("local", "WebFetch", project=project, kind="deny") is True
    text = local_file.read_text()
    assert text.index("[permissions]") < text.index("Edit(src/*)") < text.index("WebFetch")
    assert not (project / ".z-engine" / "settings.toml").exists()


def test_a_broken_file_is_not_rewritten(user_file: Path) -> None:
    user_file.write_text("[permissions]\nallow = [\n")
    with pytest.raises(SettingsFileError, match=r"settings\.toml"):
        add_permission_rule(user_file, "Read")
    user_file.write_text('[permissions]\nmode = "yolo"\n')
    with pytest.raises(SettingsFileError, match=r"permissions\.mode"):
        add_permission_rule(user_file, "Read")
    assert user_file.read_text() == '[permissions]\nmode = "yolo"\n'


def test_a_malformed_rule_is_refused(user_file: Path) -> None:
    with pytest.raises(SettingsFileError, match="not a rule"):
        add_permission_rule(user_file, "Bash(ls")
    assert not user_file.exists()


def test_writing_beside_a_v1_file_imports_it_first(zengine_home: Path, user_file: Path) -> None:
    (zengine_home / "config.toml").write_text('model = "v1-model"\nallowed_tools = ["Read"]\n')
    assert add_permission_rule(user_file, "Bash(ls)") is True
    s = load_settings(None).settings
    assert s.model.main == "v1-model"
    assert s.permissions.allow == ["Read", "Bash(ls)"]
    assert user_file.read_text().startswith("# Imported from config.toml")
