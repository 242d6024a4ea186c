"""The engine's own folders in the profile and the backends (issue 18.8), pure."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from zengine_jupyter.host.sandbox import (
    PathKind,
    ProtectedPath,
    SandboxOptions,
    SandboxProfile,
    build_bwrap_argv,
    build_seatbelt_profile,
    derive_profile,
    engine_folders,
)
from zengine_jupyter.protocol import SandboxError

P = Path("/work/proj")
HOME = Path("/home/u")


def _probe(dirs: set[str], files: set[str]) -> Callable[[Path], PathKind | None]:
    def probe(path: Path) -> PathKind | None:
        return "dir" if str(path) in dirs else "file" if str(path) in files else None

    return probe


def _derive(
    private: list[Path],
    dirs: set[str],
    files: frozenset[str] = frozenset(),
    resolve: Callable[[Path], Path] = lambda p: p,
) -> SandboxProfile:
    opts = SandboxOptions(root=P, temp_dir=Path("/tmp"), home=HOME, enabled=True)
    return derive_profile(
        opts,
        probe=_probe({str(P), "/tmp", *dirs}, set(files)),
        resolve=resolve,
        read=lambda _: None,
        hidden=(),
        private=private,
    )


def test_engine_folders_honour_zengine_home() -> None:
    assert engine_folders({"ZENGINE_HOME": "/z"}) == (Path("/z"),)
    apart = engine_folders({"HOME": "/home/u", "XDG_DATA_HOME": "/d", "XDG_CONFIG_HOME": "/c"})
    assert len(apart) == 2
    with pytest.raises(SandboxError, match="cannot tell which folder"):
        engine_folders({"ZENGINE_HOME": "relative"})


def test_a_folder_apart_is_hidden_whole_and_absent_ones_are_kept_for_later() -> None:
    prof = _derive([Path("/data/zengine"), Path("/cfg/zengine")], {"/data/zengine"})
    assert prof.private == (
        ProtectedPath(Path("/data/zengine"), "dir", exists=True),
        ProtectedPath(Path("/cfg/zengine"), "dir", exists=False),
    )
    argv = build_bwrap_argv(prof, ["true"], cwd=P, seccomp_fd=3)
    text = " ".join(argv)
    assert "--tmpfs /data/zengine --remount-ro /data/zengine" in text
    assert "/cfg/zengine" not in text  # absent outside the writable areas: nothing to read


def test_a_folder_inside_the_project_is_hidden_and_its_parents_pinned() -> None:
    home = P / "a/zhome"
    prof = _derive([home], {str(home), str(P / "a")})
    assert prof.private == (ProtectedPath(home, "dir", exists=True),)
    assert P / "a" in prof.pinned  # renaming a/ would let the command swap in a new zhome
    assert not prof.is_writable(P / "a")
    absent = _derive([P / "b/zhome"], set())
    argv = " ".join(build_bwrap_argv(absent, ["true"], cwd=P, seccomp_fd=3))
    assert f"--tmpfs {P}/b/zhome --remount-ro {P}/b/zhome" in argv  # cannot be created


def test_a_folder_holding_the_project_hides_what_is_beside_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = Path("/work")
    dirs = {str(home), str(home / "sessions")}
    files = {str(home / "auth.json")}
    listing = {home: [home / "auth.json", P, home / "sessions"]}
    opts = SandboxOptions(root=P, temp_dir=Path("/tmp"), home=HOME, enabled=True)
    from zengine_jupyter.host.sandbox import _profile

    monkeypatch.setattr(_profile, "_entries", lambda path: listing.get(path, []))
    prof = derive_profile(
        opts,
        probe=_probe({str(P), "/tmp", *dirs}, files),
        resolve=lambda p: p,
        read=lambda _: None,
        hidden=(),
        private=[home],
    )
    assert prof.private == (
        ProtectedPath(home / "auth.json", "file", exists=True),
        ProtectedPath(home / "sessions", "dir", exists=True),
    )
    argv = " ".join(build_bwrap_argv(prof, ["true"], cwd=P, seccomp_fd=3))
    assert f"--ro-bind /dev/null {home}/auth.json" in argv
    assert f"--tmpfs {home}/sessions" in argv
    assert f"--tmpfs {P} " not in argv


def test_a_linked_folder_inside_a_writable_area_fails_closed() -> None:
    link = P / "zhome"
    with pytest.raises(SandboxError, match="symbolic link inside a writable area"):
        _derive([link], {str(link)}, resolve=lambda p: Path("/elsewhere") if p == link else p)


def test_seatbelt_denies_reading_and_writing_them() -> None:
    prof = _derive([Path("/Users/u/Library/Application Support/zengine")], set())
    prof = replace(
        prof, private=(*prof.private, ProtectedPath(Path("/w/auth.json"), "file", exists=True))
    )
    sbpl = build_seatbelt_profile(prof)
    assert (
        '(deny file-read* file-write* (subpath "/Users/u/Library/Application Support/zengine"))'
        in sbpl
    )
    assert '(deny file-read* file-write* (literal "/w/auth.json"))' in sbpl
