"""SandboxProfile derivation: writable areas, caches, protected paths, absent paths (pure)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from zengine_jupyter.host.sandbox import (
    PathKind,
    ProtectedPath,
    SandboxOptions,
    SandboxProfile,
    derive_profile,
)

P = Path("/work/proj")
HOME = Path("/home/u")


def _probe(dirs: set[str], files: frozenset[str] | set[str]) -> Callable[[Path], PathKind | None]:
    def probe(path: Path) -> PathKind | None:
        if str(path) in dirs:
            return "dir"
        if str(path) in files:
            return "file"
        return None

    return probe


def _derive(
    dirs: set[str], files: frozenset[str] | set[str] = frozenset(), **kw: Any
) -> SandboxProfile:
    opts = SandboxOptions(root=P, temp_dir=Path("/tmp"), home=HOME, enabled=True, **kw)
    return derive_profile(opts, probe=_probe(dirs, files), resolve=lambda p: p)


def test_writable_areas_are_existing_dirs_parents_first() -> None:
    dirs = {str(P), "/tmp", f"{HOME}/.cache", f"{HOME}/.npm", f"{HOME}/.cargo/registry", "/data"}
    prof = _derive(dirs, additional_directories=(Path("/data"),), extra_writable=(Path("/gone"),))
    assert prof.writable == (
        Path("/data"),
        Path("/tmp"),
        Path("/work/proj"),
        Path(f"{HOME}/.cache"),
        Path(f"{HOME}/.npm"),
        Path(f"{HOME}/.cargo/registry"),
    )
    assert prof.skipped == (Path("/gone"),)
    assert not prof.allow_network


def test_macos_adds_library_caches() -> None:
    dirs = {str(P), "/tmp", f"{HOME}/Library/Caches"}
    assert Path(f"{HOME}/Library/Caches") in _derive(dirs, platform="darwin").writable
    assert Path(f"{HOME}/Library/Caches") not in _derive(dirs, platform="linux").writable


def test_repository_paths_are_pinned_and_protected_including_absent_ones() -> None:
    dirs = {str(P), "/tmp", f"{P}/.git", f"{P}/.git/hooks", f"{P}/.claude"}
    prof = _derive(dirs, files={f"{P}/.git/config", f"{P}/.git/HEAD"})
    assert prof.pinned == (P / ".git",)
    assert prof.protected == (
        ProtectedPath(P / ".git/hooks", "dir", exists=True),
        ProtectedPath(P / ".git/config", "file", exists=True),
        ProtectedPath(P / ".git/commondir", "file", exists=False, seed=b".\n"),
        ProtectedPath(P / ".z-engine", "dir", exists=False),
        ProtectedPath(P / ".claude", "dir", exists=True),
        ProtectedPath(P / ".mcp.json", "file", exists=False),
    )


def test_no_repository_blocks_creating_one_and_git_file_is_protected() -> None:
    prof = _derive({str(P), "/tmp"})
    assert ProtectedPath(P / ".git", "dir", exists=False) in prof.protected
    assert prof.pinned == ()
    worktree = _derive({str(P), "/tmp"}, files={f"{P}/.git"})
    assert ProtectedPath(P / ".git", "file", exists=True) in worktree.protected


def test_an_empty_git_folder_is_a_placeholder_not_a_repository() -> None:
    # another sandbox's mount point: blocked (and shared) like an absent .git, never pinned
    prof = _derive({str(P), "/tmp", f"{P}/.git"})
    assert ProtectedPath(P / ".git", "dir", exists=True) in prof.protected
    assert prof.pinned == ()


def test_optional_git_redirects_are_protected_only_when_present() -> None:
    dirs = {str(P), "/tmp", f"{P}/.git", f"{P}/.git/worktrees", f"{P}/.git/modules"}
    prof = _derive(dirs, files={f"{P}/.git/config.worktree", f"{P}/.git/HEAD"})
    paths = {p.path for p in prof.protected}
    assert {P / ".git/worktrees", P / ".git/modules", P / ".git/config.worktree"} <= paths
    bare = _derive({str(P), "/tmp", f"{P}/.git"}, files={f"{P}/.git/HEAD"})
    assert P / ".git/worktrees" not in {p.path for p in bare.protected}


def test_extra_writable_only_protects_what_exists() -> None:
    dirs = {str(P), "/tmp", "/x"}
    prof = _derive(dirs, files={"/x/.mcp.json"}, extra_writable=(Path("/x"),))
    extra = [p for p in prof.protected if p.path.is_relative_to("/x")]
    assert extra == [ProtectedPath(Path("/x/.mcp.json"), "file", exists=True)]


def test_is_writable_excludes_protected_and_pinned() -> None:
    prof = _derive({str(P), "/tmp", f"{P}/.git"}, files={f"{P}/.git/HEAD"})
    assert prof.is_writable(P / "src/a.py")
    assert prof.is_writable(P / ".git/objects/ab")
    assert not prof.is_writable(P / ".git")
    assert not prof.is_writable(P / ".git/hooks/pre-commit")
    assert not prof.is_writable(P / ".z-engine/settings.toml")
    assert not prof.is_writable(Path("/etc/passwd"))
    assert not prof.is_writable(HOME / ".bashrc")


def test_git_config_parser_finds_hooks_path_and_includes() -> None:
    from zengine_jupyter.host.sandbox._gitconfig import hooks_and_includes

    text = (
        "[core]\n\trepositoryformatversion = 0\n\thooksPath = .githooks ; old\n"
        '[include]\n\tpath = "../team.gitconfig"\n'
        '[includeIf "gitdir:~/work/"]\n\tpath = ~/.work.gitconfig\n'
        "# [core] hooksPath = /commented\n[Core]\n\tHooksPath = .husky/_\n"
    )
    assert hooks_and_includes(text) == (".husky/_", ["../team.gitconfig", "~/.work.gitconfig"])
    assert hooks_and_includes("[user]\n\tname = x\n") == (None, [])


def test_hooks_path_and_includes_inside_the_project_are_protected() -> None:
    config = "[core]\n\thooksPath = .husky/_\n[include]\n\tpath = ../shared.gitconfig\n"
    dirs = {str(P), "/tmp", f"{P}/.git", f"{P}/.git/hooks"}
    opts = SandboxOptions(root=P, temp_dir=Path("/tmp"), home=HOME, enabled=True)
    texts = {P / ".git/config": config, HOME / ".gitconfig": "[include]\n\tpath = /etc/x\n"}
    prof = derive_profile(
        opts,
        probe=_probe(dirs, {f"{P}/.git/config", f"{P}/.git/HEAD"}),
        resolve=lambda p: p,
        read=texts.get,
    )
    assert ProtectedPath(P / "shared.gitconfig", "file", exists=False, seed=b"") in prof.protected
    # .husky is missing: the topmost missing folder is what gets blocked
    assert ProtectedPath(P / ".husky", "dir", exists=False) in prof.protected
    assert not any(p.path == Path("/etc/x") for p in prof.protected)


def test_a_symlinked_protected_path_refuses_the_profile() -> None:
    import pytest

    from zengine_jupyter.protocol import SandboxError

    dirs = {str(P), "/tmp", f"{P}/.git", f"{P}/.git/hooks"}
    opts = SandboxOptions(root=P, temp_dir=Path("/tmp"), home=HOME, enabled=True)

    def resolve(path: Path) -> Path:
        return Path("/elsewhere/hooks") if path == P / ".git/hooks" else path

    with pytest.raises(SandboxError, match="symbolic link"):
        derive_profile(
            opts, probe=_probe(dirs, {f"{P}/.git/HEAD"}), resolve=resolve, read=lambda _: None
        )


def test_container_sockets_are_masked_only_with_network_on() -> None:
    from zengine_jupyter.host.sandbox import container_sockets

    dirs = {str(P), "/tmp"}
    files = {"/run/docker.sock"}
    opts = SandboxOptions(root=P, temp_dir=Path("/tmp"), home=HOME, enabled=True)
    off = derive_profile(opts, probe=_probe(dirs, files), resolve=lambda p: p, read=lambda _: None)
    assert off.masked == ()
    on_opts = SandboxOptions(
        root=P, temp_dir=Path("/tmp"), home=HOME, enabled=True, allow_network=True
    )
    on = derive_profile(
        on_opts, probe=_probe(dirs, files), resolve=lambda p: p, read=lambda _: None
    )
    assert on.masked == (Path("/run/docker.sock"),)
    assert Path("/run/user/1000/podman/podman.sock") in container_sockets(1000)


def test_a_global_hooks_path_in_a_writable_cache_is_protected_even_without_a_repo() -> None:
    dirs = {str(P), "/tmp", f"{HOME}/.cache"}
    opts = SandboxOptions(root=P, temp_dir=Path("/tmp"), home=HOME, enabled=True)
    texts = {HOME / ".config/git/config": "[core]\n\thooksPath = ~/.cache/githooks\n"}
    prof = derive_profile(opts, probe=_probe(dirs, set()), resolve=lambda p: p, read=texts.get)
    assert ProtectedPath(HOME / ".cache/githooks", "dir", exists=False) in prof.protected
    assert not prof.is_writable(HOME / ".cache/githooks/pre-commit")
    assert prof.is_writable(HOME / ".cache/pip/x")


def test_jupyter_runtime_folders_are_hidden_when_present() -> None:
    from zengine_jupyter.host.sandbox import jupyter_runtime_dirs

    runtime = HOME / ".local/share/jupyter/runtime"
    dirs = {str(P), "/tmp", str(runtime)}
    opts = SandboxOptions(root=P, temp_dir=Path("/tmp"), home=HOME, enabled=True)
    prof = derive_profile(opts, probe=_probe(dirs, set()), resolve=lambda p: p, read=lambda _: None)
    assert prof.hidden == (runtime,)
    found = jupyter_runtime_dirs(
        HOME, {"JUPYTER_RUNTIME_DIR": "/srv/rt", "XDG_RUNTIME_DIR": "/run/u"}, 7
    )
    assert {Path("/srv/rt"), Path("/run/u/jupyter"), Path("/run/user/7/jupyter"), runtime} <= set(
        found
    )
