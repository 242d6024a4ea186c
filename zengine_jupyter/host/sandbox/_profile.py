"""SandboxProfile: what a sandboxed command may write, what stays read-only, and the network.

The engine fills :class:`SandboxOptions` from ``[shell.sandbox]``; :func:`derive_profile` turns
them into a :class:`SandboxProfile`, looking only at which paths exist (through an injectable
probe, so tests need no files). The backends (bubblewrap, seatbelt) translate the profile;
``policy`` reads it for auto-allow.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from zengine_jupyter.config import data_dir, user_config_dir
from zengine_jupyter.host.sandbox._gitconfig import hooks_and_includes
from zengine_jupyter.host.sandbox._homes import other_homes
from zengine_jupyter.host.sandbox._placeholders import is_placeholder
from zengine_jupyter.protocol import ConfigError, SandboxError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

__all__ = [
    "TOOL_CACHES",
    "TOOL_CACHES_MACOS",
    "PathKind",
    "ProtectedPath",
    "SandboxOptions",
    "SandboxProfile",
    "container_sockets",
    "derive_profile",
    "engine_folders",
    "jupyter_runtime_dirs",
    "probe_path",
]

PathKind = Literal["dir", "file"]

TOOL_CACHES: tuple[str, ...] = (".cargo/registry", ".cargo/git", ".npm", ".cache", ".gradle", ".m2")
"""Package caches under the home folder that stay writable when they exist (pip, uv, conda's
package cache and pre-commit live under ``~/.cache``)."""
TOOL_CACHES_MACOS: tuple[str, ...] = ("Library/Caches",)


def container_sockets(uid: int | None = None) -> tuple[Path, ...]:
    """Sockets of container engines: whoever reaches one can mount the host's root in a new
    container. With network on, Unix sockets are reachable, so these are covered anyway."""
    user = os.getuid() if uid is None and hasattr(os, "getuid") else uid
    paths = [
        Path("/var/run/docker.sock"),
        Path("/run/docker.sock"),
        Path("/run/containerd/containerd.sock"),
        Path("/run/podman/podman.sock"),
        Path("/run/crio/crio.sock"),
    ]
    if user is not None:
        paths += [
            Path(f"/run/user/{user}/docker.sock"),
            Path(f"/run/user/{user}/podman/podman.sock"),
        ]
    return tuple(paths)


def jupyter_runtime_dirs(
    home: Path, environ: Mapping[str, str] | None = None, uid: int | None = None
) -> tuple[Path, ...]:
    """Where Jupyter keeps kernel connection files and server tokens.

    With them, a command could drive the user's kernel or server over localhost and run code
    outside the sandbox, so the sandbox sees these folders empty.
    """
    env = os.environ if environ is None else environ
    user = os.getuid() if uid is None and hasattr(os, "getuid") else uid
    paths = [home / ".local/share/jupyter/runtime", home / "Library/Jupyter/runtime"]
    if env.get("JUPYTER_RUNTIME_DIR"):
        paths.append(Path(env["JUPYTER_RUNTIME_DIR"]))
    if env.get("XDG_RUNTIME_DIR"):
        paths.append(Path(env["XDG_RUNTIME_DIR"]) / "jupyter")
    if env.get("JUPYTER_DATA_DIR"):
        paths.append(Path(env["JUPYTER_DATA_DIR"]) / "runtime")
    if user is not None:
        paths.append(Path(f"/run/user/{user}/jupyter"))
    return tuple(dict.fromkeys(paths))


def engine_folders(environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """The engine's own folders: the data folder (chats and their artifacts, ``auth.json`` with
    keys for other hosts, checkpoints) and the user settings folder (hooks, MCP headers).

    A command reading them would learn keys and other chats; one writing them could plant a
    hook the host runs. So the sandbox sees them empty and read-only. Both honour
    ``$ZENGINE_HOME``.
    """
    env = dict(os.environ if environ is None else environ)
    try:
        return tuple(dict.fromkeys([data_dir(env), user_config_dir(env)]))
    except ConfigError as exc:
        raise SandboxError(
            f"cannot tell which folder to hide from the sandbox: {exc.message}",
            hint=exc.hint or "",
        ) from exc


COMMONDIR_SEED = b".\n"
"""Content for an absent ``.git/commondir`` placeholder: git reads it as "the common dir is this
git dir", so the host's git behaves exactly as without the file (an empty file would make it
fail), while the sandbox cannot create a real one pointing at a planted config."""


@dataclass(frozen=True)
class SandboxOptions:
    """Everything the sandbox needs from settings; the engine fills it from ``[shell.sandbox]``."""

    root: Path
    """The agent's root: the project, or a worktree agent's own worktree."""
    temp_dir: Path
    home: Path
    enabled: bool = False
    allow_network: bool = False
    auto_allow: bool = False
    additional_directories: tuple[Path, ...] = ()
    extra_writable: tuple[Path, ...] = ()
    platform: str = sys.platform


@dataclass(frozen=True)
class ProtectedPath:
    """A path that stays read-only even inside a writable area.

    When it does not exist, a backend must block its creation (bubblewrap mounts an empty
    read-only placeholder over it; seatbelt denies writes to the path).
    """

    path: Path
    kind: PathKind
    exists: bool
    seed: bytes | None = None
    """If set and the path is absent, the launcher creates it with this neutral content first
    (then it is protected like an existing file) instead of mounting a directory placeholder."""


@dataclass(frozen=True)
class SandboxProfile:
    """The confinement for one command; pure data."""

    root: Path
    writable: tuple[Path, ...]
    """Existing, resolved writable areas, parents before children."""
    pinned: tuple[Path, ...]
    """Directories (a repository's ``.git``) that stay writable inside but cannot be renamed or
    removed, so a fresh ``.git`` with its own config and hooks cannot be swapped in."""
    protected: tuple[ProtectedPath, ...]
    allow_network: bool
    home: Path
    temp_dir: Path
    skipped: tuple[Path, ...] = ()
    """Configured writable paths that do not exist (not bound; shown by diagnostics)."""
    masked: tuple[Path, ...] = ()
    """Existing container-engine sockets covered when the network is on (network off blocks
    every Unix socket already)."""
    hidden: tuple[Path, ...] = ()
    """Existing folders the command sees empty (Jupyter's connection files and tokens)."""
    foreign: tuple[Path, ...] = ()
    """Other users' home folders (:func:`other_homes`): seen empty, covered before the writable
    areas are bound, so an area inside one (a shared project) is still there."""
    private: tuple[ProtectedPath, ...] = ()
    """The engine's own folders (:func:`engine_folders`), or, when one holds a writable area
    (``ZENGINE_HOME`` above the project), its entries beside that area: seen empty and
    read-only. An absent one inside a writable area cannot be created."""

    def refreshed(self, probe: Callable[[Path], PathKind | None] | None = None) -> SandboxProfile:
        """The same profile with ``exists`` re-checked (just before a launch), and without
        another user's home that is gone since (bubblewrap cannot cover a folder that is not
        there: its ``--tmpfs`` would stop the launch)."""
        look = probe or probe_path
        protected = tuple(_looked(p, look(p.path), kind=False) for p in self.protected)
        private = tuple(_looked(item, look(item.path), kind=True) for item in self.private)
        foreign = tuple(home for home in self.foreign if look(home) == "dir")
        if (protected, private, foreign) == (self.protected, self.private, self.foreign):
            return self
        return replace(self, protected=protected, private=private, foreign=foreign)

    def is_writable(self, path: Path) -> bool:
        """True when ``path`` (absolute, normalised) is inside a writable area and not protected."""
        if not any(path.is_relative_to(area) for area in self.writable):
            return False
        return not any(path.is_relative_to(p.path) for p in self.protected) and path not in (
            self.pinned
        )


_ABSENT = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})
"""What pathlib's ``is_dir``/``exists``/``is_symlink`` read as "not there" (others raise)."""


def _looked(item: ProtectedPath, found: PathKind | None, *, kind: bool) -> ProtectedPath:
    """``item`` as a fresh look ``found`` it: whether it exists, and (``kind``) as what; the
    same object when nothing changed (a launch looks twice, and ``replace`` is not free)."""
    new_kind = (found or item.kind) if kind else item.kind
    if item.exists == (found is not None) and new_kind == item.kind:
        return item
    return replace(item, kind=new_kind, exists=found is not None)


def probe_path(path: Path | str) -> PathKind | None:
    """What is at ``path``: a directory, something else, or nothing (symlinks are followed; a
    link to nothing is "file"). pathlib's ``is_dir() / exists() / is_symlink()`` in one system
    call (two for a link) instead of up to three: a sandboxed command's plan and launch probe
    ~40 paths each time, most of them absent, and run cold after the last command (issue 25).
    A placeholder folder of this process's sandboxes reads as absent (:func:`is_placeholder`)."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        if exc.errno not in _ABSENT:
            raise
        return None
    if stat.S_ISLNK(st.st_mode):
        try:
            st = os.stat(path)  # noqa: PTH116 (one call for a str or a Path)
        except OSError as exc:
            if exc.errno not in _ABSENT:
                raise
            return "file"  # a link to nothing
    elif stat.S_ISDIR(st.st_mode) and is_placeholder(os.fspath(path)):
        return None  # a sandbox's own placeholder: the path is as absent as it was
    return "dir" if stat.S_ISDIR(st.st_mode) else "file"


def _resolve(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


@dataclass(frozen=True)
class _Look:
    """How derive_profile sees the filesystem (injectable for pure tests)."""

    probe: Callable[[Path], PathKind | None]
    resolve: Callable[[Path], Path]
    read: Callable[[Path], str | None]
    home: Path
    writable: tuple[Path, ...] = ()
    entries: Callable[[Path], list[Path]] = lambda path: _entries(path)


def _protect(
    path: Path, area: Path, look: _Look, *, kind: PathKind, seed: bytes | None = None
) -> ProtectedPath:
    """``path`` as a protected entry; when absent, its topmost missing folder below ``area``."""
    present = look.probe(path)
    if present is None:
        while path.parent != area and look.probe(path.parent) is None:
            path, kind, seed = path.parent, "dir", None
    return ProtectedPath(path, present or kind, present is not None, seed)


def _project_protections(
    area: Path, look: _Look, *, block_absent: bool
) -> tuple[list[Path], list[ProtectedPath]]:
    """Pinned dirs and protected paths of one project-like writable area."""
    pinned: list[Path] = []
    found: list[ProtectedPath] = []

    def add(rel: str, kind: PathKind, *, seed: bytes | None = None, absent: bool = True) -> None:
        if look.probe(area / rel) is None and not (block_absent and absent):
            return
        found.append(_protect(area / rel, area, look, kind=kind, seed=seed))

    # HEAD: every repository has one; an empty ``.git`` is another sandbox's placeholder (a
    # command started while one is mounted must block it like an absent one, and share it)
    if look.probe(area / ".git") == "dir" and look.probe(area / ".git/HEAD") is not None:
        pinned.append(area / ".git")
        add(".git/hooks", "dir")
        add(".git/config", "file")
        add(".git/commondir", "file", seed=COMMONDIR_SEED)
        add(".git/config.worktree", "file", absent=False)
        add(".git/worktrees", "dir", absent=False)
        add(".git/modules", "dir", absent=False)
        found += _git_config_targets([area / ".git/config"], area, look)
    else:  # a worktree's .git file, or no repository: creating one is blocked
        add(".git", "dir")
    add(".z-engine", "dir")
    add(".claude", "dir")
    add(".mcp.json", "file")
    return pinned, found


def _git_config_targets(sources: Sequence[Path], top: Path, look: _Look) -> list[ProtectedPath]:
    """``core.hooksPath`` and included config files that a sandboxed command could write.

    Hooks there (husky's ``.husky/_``, say) run on the host at the next commit, and an included
    config file could set ``core.hooksPath`` again: both stay read-only; an absent include gets
    an empty (neutral) config file. A relative hooks path is relative to the worktree ``top``.
    """
    hooks: str | None = None
    found: list[ProtectedPath] = []

    def guard(path: Path, kind: PathKind, seed: bytes | None) -> None:
        area = next((a for a in look.writable if path.is_relative_to(a) and path != a), None)
        if area is not None:
            found.append(_protect(path, area, look, kind=kind, seed=seed))

    for source in sources:
        text = look.read(source)
        if text is None:
            continue
        found_hooks, includes = hooks_and_includes(text)
        hooks = found_hooks or hooks
        for include in includes:
            guard(_expand(include, source.parent, look.home), "file", b"")
    if hooks:
        guard(_expand(hooks, top, look.home), "dir", None)
    return found


def _expand(value: str, base: Path, home: Path) -> Path:
    if value == "~" or value.startswith("~/"):
        return Path(os.path.normpath(str(home) + value[1:]))
    return Path(os.path.normpath(base / value))


def _refuse_links(items: Iterable[Path], look: _Look) -> None:
    for path in items:
        if look.probe(path) is not None and look.resolve(path) != path:
            raise SandboxError(
                f"{path} is a symbolic link, so the sandbox cannot keep it read-only "
                "(the link itself could be replaced)",
                hint="replace the link with the real file or folder, or set "
                "[shell.sandbox] enabled = false for this project",
            )


def _entries(path: Path) -> list[Path]:
    try:
        return sorted(path.iterdir())
    except OSError:
        return []


def _private(folders: Iterable[Path], look: _Look) -> tuple[list[ProtectedPath], list[Path]]:
    """What to hide of the engine's ``folders``, and the folders to pin on the way to them.

    A folder that holds no writable area is hidden whole; one that does (the project inside
    ``ZENGINE_HOME``) is opened one level and each entry handled the same way, so the writable
    area stays visible and everything beside it is hidden. A folder inside a writable area must
    not be a link (the command could re-point it), and the folders between the area and it are
    pinned: renaming one would let the command swap in a planted data folder.
    """
    found: list[ProtectedPath] = []
    pins: list[Path] = []

    def hide(path: Path, depth: int) -> None:
        kind = look.probe(path)
        if not any(area.is_relative_to(path) for area in look.writable):
            found.append(ProtectedPath(path, kind or "dir", kind is not None))
            area = next((a for a in look.writable if path.is_relative_to(a) and path != a), None)
            if area is not None:  # the existing folders between the area and it
                pins.extend(
                    p
                    for p in path.parents
                    if p.is_relative_to(area) and p != area and look.probe(p) == "dir"
                )
            return
        if kind != "dir" or depth > 16:
            return
        for entry in look.entries(path):
            if look.resolve(entry).is_relative_to(path):  # a link out is not ours to hide
                hide(look.resolve(entry), depth + 1)

    for folder in dict.fromkeys(folders):
        real = look.resolve(folder)
        inside = any(folder.is_relative_to(a) for a in look.writable)
        if inside and look.probe(folder) is not None and real != folder:
            raise SandboxError(
                f"the engine's folder {folder} is a symbolic link inside a writable area, so "
                "the sandbox cannot keep it out of reach (the link could be re-pointed)",
                hint="set ZENGINE_HOME to the link's target, or move the folder out of the "
                "project and the temporary folder",
            )
        hide(real, 0)
    return found, pins


def _existing(paths: Iterable[Path], probe: Callable[[Path], PathKind | None]) -> list[Path]:
    return [p for p in paths if probe(p) == "dir"]


def derive_profile(
    options: SandboxOptions,
    probe: Callable[[Path], PathKind | None] = probe_path,
    resolve: Callable[[Path], Path] = _resolve,
    read: Callable[[Path], str | None] = _read_text,
    sockets: Sequence[Path] | None = None,
    hidden: Sequence[Path] | None = None,
    private: Sequence[Path] | None = None,
    others: Sequence[Path] | None = None,
    entries: Callable[[Path], list[Path]] | None = None,
) -> SandboxProfile:
    """The profile for ``options``; ``probe``/``resolve``/``read`` are injectable for pure tests,
    ``sockets`` replaces :func:`container_sockets`, ``hidden`` :func:`jupyter_runtime_dirs`,
    ``private`` :func:`engine_folders`, ``others`` :func:`other_homes`, ``entries`` the
    listing of a folder.

    Raises :class:`SandboxError` when a protected path is a symbolic link (fail closed).
    """
    home = resolve(options.home)
    cache_names = TOOL_CACHES + (TOOL_CACHES_MACOS if options.platform == "darwin" else ())
    caches = [resolve(home / rel) for rel in cache_names]
    projects = [resolve(p) for p in (options.root, *options.additional_directories)]
    extras = [resolve(p) for p in options.extra_writable]
    temp = resolve(options.temp_dir)
    wanted = [*projects, temp, *extras]
    skipped = tuple(p for p in wanted if probe(p) != "dir")
    writable = _existing(dict.fromkeys([*wanted, *caches]), probe)
    writable.sort(key=lambda p: (len(p.parts), str(p)))
    look = _Look(probe, resolve, read, home, tuple(writable), entries or _entries)

    pinned: list[Path] = []
    protected: list[ProtectedPath] = []
    for area in dict.fromkeys([*projects, *extras]):
        if probe(area) != "dir":
            continue
        pins, found = _project_protections(area, look, block_absent=area in projects)
        pinned += pins
        protected += found
    user_configs = [home / ".gitconfig", home / ".config/git/config", Path("/etc/gitconfig")]
    protected += _git_config_targets(user_configs, projects[0], look)
    _refuse_links([*pinned, *(p.path for p in protected)], look)
    own, own_pins = _private(engine_folders() if private is None else private, look)
    pinned += sorted(own_pins, key=lambda p: len(p.parts))
    masked: list[Path] = []
    if options.allow_network:
        candidates = container_sockets() if sockets is None else sockets
        masked = [resolve(s) for s in candidates if probe(s) == "file"]
    hide = jupyter_runtime_dirs(home) if hidden is None else hidden
    hidden_dirs = [resolve(h) for h in hide if probe(h) == "dir"]
    homes = other_homes(options.home) if others is None else others
    foreign = [
        resolve(h)
        for h in homes
        if probe(h) == "dir"
        and not home.is_relative_to(h)
        and not any(resolve(h).is_relative_to(area) for area in writable)
    ]
    return SandboxProfile(
        root=resolve(options.root),
        writable=tuple(writable),
        pinned=tuple(dict.fromkeys(pinned)),
        protected=tuple(dict.fromkeys(protected)),
        allow_network=options.allow_network,
        home=home,
        temp_dir=temp,
        skipped=skipped,
        masked=tuple(dict.fromkeys(masked)),
        hidden=tuple(dict.fromkeys(hidden_dirs)),
        foreign=tuple(dict.fromkeys(foreign)),
        private=tuple(dict.fromkeys(own)),
    )
