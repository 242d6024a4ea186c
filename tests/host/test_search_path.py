"""Programs are looked up on PATH's absolute entries only: a relative entry ("", ".",
".venv/bin") names a folder of whatever the working folder is, the project for the engine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zengine_jupyter.host import child_environment, search_path, which


def _program(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def test_relative_and_empty_entries_are_dropped_in_order() -> None:
    raw = os.pathsep.join(["", "/usr/local/bin", ".", "bin", "/usr/bin", ".venv/bin", ""])
    assert search_path(raw) == os.pathsep.join(["/usr/local/bin", "/usr/bin"])
    assert search_path("") == ""


def test_which_finds_the_systems_program_not_the_working_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, system = tmp_path / "project", tmp_path / "system"
    _program(project, "zj-tool")
    _program(project / "bin", "zj-tool")
    real = _program(system, "zj-tool")
    monkeypatch.chdir(project)
    monkeypatch.setenv("PATH", os.pathsep.join(["", ".", "bin", str(system)]))
    assert which("zj-tool") == str(real)
    monkeypatch.setenv("PATH", os.pathsep.join(["", ".", "bin"]))
    assert which("zj-tool") is None  # only the project has one: not found
    assert which("./zj-tool") == "./zj-tool"  # a name with a slash is what the caller chose


def test_a_child_gets_only_the_absolute_entries_and_an_explicit_path_as_given() -> None:
    base = {"PATH": os.pathsep.join([".", "/usr/bin", ""]), "HOME": "/home/x"}
    assert child_environment(base=base)["PATH"] == "/usr/bin"
    chosen = {"PATH": "tools:/opt/bin"}  # a server's configured env: the user's own choice
    assert child_environment(chosen, base=base)["PATH"] == "tools:/opt/bin"
