"""A plan reuses the last derived profile only while every answer it was derived from holds
(issue 25: the sandbox's start-up per command), on real files."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.host.sandbox import SandboxOptions, derive_profile, probe_path
from zengine_jupyter.host.sandbox import _reuse as reuse
from zengine_jupyter.protocol import SandboxError

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SandboxOptions:
    monkeypatch.setenv("ZENGINE_HOME", str(tmp_path / "zhome"))
    monkeypatch.setattr(reuse, "_cache", type(reuse._cache)())
    for name in ("project/.git/hooks", "tmp", "home/.cache"):
        (tmp_path / name).mkdir(parents=True)
    (tmp_path / "project/.git/config").write_text("[core]\n\tbare = false\n")
    (tmp_path / "project/.git/HEAD").write_text("ref: refs/heads/main\n")
    return SandboxOptions(
        root=tmp_path / "project", temp_dir=tmp_path / "tmp", home=tmp_path / "home", enabled=True
    )


def test_an_unchanged_project_reuses_the_profile_derived_first(options: SandboxOptions) -> None:
    first = reuse.reused_profile(options)
    assert first == derive_profile(options)
    assert reuse.reused_profile(options) is first


def test_a_new_protected_path_or_config_include_is_seen_at_once(options: SandboxOptions) -> None:
    """What the derivation asked is asked again: a created ``.mcp.json`` and a config include
    added since the last plan are in the next profile as a fresh derivation has them."""
    before = reuse.reused_profile(options)
    (options.root / ".mcp.json").write_text("{}")
    (options.root / ".git/config").write_text("[include]\n\tpath = ../inc.cfg\n")
    after = reuse.reused_profile(options)
    assert after is not before
    assert after == derive_profile(options)
    protected = {str(p.path.relative_to(options.root)): p.exists for p in after.protected}
    assert protected[".mcp.json"] is True
    assert "inc.cfg" in protected


def test_a_protected_folder_swapped_for_a_link_is_refused_again(
    options: SandboxOptions, tmp_path: Path
) -> None:
    """Attack: after one plan, ``.git/hooks`` becomes a link to a folder the command can
    write; a reused profile would bind the link's target read-only and leave the link itself
    replaceable. The next plan must refuse it, as deriving afresh does."""
    reuse.reused_profile(options)
    hooks = options.root / ".git/hooks"
    hooks.rmdir()
    (tmp_path / "tmp/hooks").mkdir()
    hooks.symlink_to(tmp_path / "tmp/hooks")
    with pytest.raises(SandboxError, match="symbolic link"):
        reuse.reused_profile(options)


def test_a_link_on_the_way_to_the_project_changes_the_profile(
    options: SandboxOptions, tmp_path: Path
) -> None:
    """The project named through a link resolves elsewhere: the replay's per-folder check
    sees the link where ``realpath`` would."""
    reuse.reused_profile(options)
    (tmp_path / "elsewhere/.git").mkdir(parents=True)
    (tmp_path / "elsewhere/.git/HEAD").write_text("ref: refs/heads/main\n")
    moved = tmp_path / "project-old"
    options.root.rename(moved)
    options.root.symlink_to(tmp_path / "elsewhere")
    after = reuse.reused_profile(options)
    assert after.root == tmp_path / "elsewhere"
    assert after == derive_profile(options)


def test_another_environment_is_another_profile(
    options: SandboxOptions, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = reuse.reused_profile(options)
    monkeypatch.setenv("ZENGINE_HOME", str(tmp_path / "other"))
    second = reuse.reused_profile(options)
    assert second != first
    assert (tmp_path / "other") in [p.path for p in second.private]


def _pathlib_probe(path: Path) -> str | None:
    """What probe_path answered before it made its own system calls (pathlib, up to three)."""
    if path.is_dir():
        return "dir"
    if path.exists() or path.is_symlink():
        return "file"
    return None


def test_probe_path_answers_as_pathlib_did_for_every_kind_of_entry(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("x")
    links = {"to-dir": "dir", "to-file": "file", "dangling": "nowhere", "loop": "loop"}
    for name, target in links.items():
        (tmp_path / name).symlink_to(tmp_path / target)
    names = ["dir", "file", *links, "absent", "file/below", "absent/below", "loop/below"]
    for name in names:
        path = tmp_path / name
        assert probe_path(path) == probe_path(str(path)) == _pathlib_probe(path), name
    assert [probe_path(tmp_path / n) for n in ("to-dir", "dangling", "file/below")] == [
        "dir",
        "file",
        None,
    ]


def test_a_refreshed_profile_is_the_same_object_until_a_path_changes(
    options: SandboxOptions,
) -> None:
    profile = derive_profile(options)
    assert profile.refreshed() is profile  # nothing changed: no copy
    claude = next(p for p in profile.protected if p.path.name == ".claude")
    assert not claude.exists
    (options.root / ".claude").mkdir()
    again = profile.refreshed()
    assert again is not profile
    pairs = list(zip(profile.protected, again.protected, strict=True))
    assert [(a.path.name, b.exists) for a, b in pairs if a != b] == [(".claude", True)]
    assert all(b is a for a, b in pairs if a.path.name != ".claude")  # kept, not copied
