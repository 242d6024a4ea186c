# ruff: noqa: PTH112, PTH113, PTH118 (strings, not Path: the gate classifies on every call)
"""Where a path is, for the gate: inside the project, in an additional directory, outside,
and whether it is protected.

Protected paths are where a write would plant code that runs later, outside any approval:

* in the project (and in additional directories): any path with a ``.git``, ``.z-engine`` or
  ``.claude`` folder in it, at any depth (so a nested repository's ``sub/.git/config`` too), any
  ``.mcp.json``, and every path inside a folder that *looks like a git directory* (it holds a
  ``HEAD`` file and ``objects/`` and ``refs/`` folders: a bare repository such as
  ``tests/fixture.git``, whose ``config`` and ``hooks/`` git would honour). The last test looks
  at the disk when the gate decides: a folder only becomes a git directory once it has all
  three, so its ``config`` written first is not caught here (git run by the engine ignores such
  repositories: ``safe.bareRepository=explicit``);
* the user's startup files, wherever the project is: shell rc files (``~/.bashrc``,
  ``~/.bash_profile``, ``~/.bash_login``, ``~/.profile``, ``~/.zshrc``, ``~/.zprofile``,
  ``~/.zshenv``, ``~/.zlogin``, ``~/.config/fish/``), IPython startup folders
  (``~/.ipython/profile_*/startup/``), git's user configuration (``~/.gitconfig``,
  ``~/.config/git/``), ``~/.ssh/``, and zengine's own user configuration and data folders.

Names are compared case-insensitively (``.GIT/config`` is protected): Linux is case-sensitive,
but macOS and Windows file systems usually are not, and an extra question costs little.

A path is classified twice, as written (made absolute, ``..`` folded without following links)
and fully resolved (symlinks followed); the stricter answer wins, so neither a symlink into
``.git`` nor a ``.git`` that is itself a symlink escapes.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from zengine_jupyter.config import data_dir, user_config_dir

__all__ = ["PathClass", "PathInfo", "ProjectPaths"]

PathClass = Literal["inside", "additional", "protected", "outside"]

_PROTECTED_FOLDERS = frozenset({".git", ".z-engine", ".claude"})
_PROTECTED_FILES = frozenset({".mcp.json"})
_HOME_FILES = (
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
    ".zprofile", ".zshenv", ".zlogin", ".gitconfig", ".pythonrc", ".pythonstartup",
)  # fmt: skip
_HOME_FOLDERS = (".config/fish", ".config/git", ".ssh", ".config/autostart")
_SECRET_FOLDERS = (".ssh",)


@dataclass(frozen=True)
class PathInfo:
    """One path's place: ``where`` it is and, when protected, ``why`` (a short label)."""

    path: Path
    where: Literal["inside", "additional", "outside"]
    why: str | None = None
    """``.git``, ``.z-engine``, ``a shell startup file``... None when not protected."""
    secret: bool = False
    """Reading it asks too (the data folder, ``~/.ssh``)."""

    @property
    def kind(self) -> PathClass:
        return "protected" if self.why is not None else self.where


@dataclass(frozen=True)
class ProjectPaths:
    """The project root, additional directories, and the user's folders, resolved once."""

    root: Path
    additional: tuple[Path, ...] = ()
    home: Path | None = None
    user_folders: tuple[Path, ...] | None = None
    """zengine's user configuration and data folders; None: from the environment."""

    @classmethod
    def of(
        cls, root: Path, additional: tuple[Path, ...] = (), home: Path | None = None
    ) -> ProjectPaths:
        home = home or Path("~").expanduser()
        folders: list[Path] = []
        for find in (data_dir, user_config_dir):
            try:
                folders.append(Path(os.path.realpath(find())))
            except Exception:  # a bad ZENGINE_HOME is reported where settings load
                continue
        return cls(
            Path(os.path.realpath(root)),
            tuple(Path(os.path.realpath(p)) for p in additional),
            Path(os.path.realpath(home)),
            tuple(dict.fromkeys(folders)),
        )

    def classify(self, path: Path, *, write: bool = True) -> PathInfo:
        """Both forms of ``path`` (as written, resolved); the stricter one. ``write=False``
        skips looking for git directories on disk (reading them is free)."""
        text = os.fspath(path)
        absolute = text if text.startswith("/") else os.path.join(self.root, text)
        lexical = posixpath.normpath(absolute)
        if lexical.startswith("//"):
            lexical = "/" + lexical.lstrip("/")
        resolved = os.path.realpath(absolute)
        first = self._classify(lexical, disk=False)
        second = first if resolved == lexical and not write else None
        if second is None:
            second = self._classify(resolved, disk=write)
        return max(first, second, key=_severity)

    def _classify(self, path: str, *, disk: bool) -> PathInfo:
        where: Literal["inside", "additional", "outside"] = "outside"
        rel: str | None = None
        base = ""
        for folder, place in ((self.root, "inside"), *((a, "additional") for a in self.additional)):
            rel = _relative(path, os.fspath(folder))
            if rel is not None:
                where, base = place, os.fspath(folder)  # type: ignore[assignment]
                break
        why, secret = self._user_file(path)
        if why is None and rel:
            why = _in_project(path, rel, base, disk=disk)
        return PathInfo(Path(path), where, why, secret)

    def _user_file(self, path: str) -> tuple[str | None, bool]:
        for user_folder in self.user_folders or ():
            if _relative(path, os.fspath(user_folder)) is not None:
                return "zengine's own folder (settings, chats, keys)", True
        found = None if self.home is None else _relative(path, os.fspath(self.home))
        if not found:
            return None, False
        rel = found.casefold()
        if rel in _HOME_FILES:
            return "a startup file in your home folder", False
        for folder in _HOME_FOLDERS:
            if rel == folder or rel.startswith(folder + "/"):
                secret = folder in _SECRET_FOLDERS
                return f"~/{folder} (your {'keys' if secret else 'startup files'})", secret
        parts = rel.split("/")
        ipython = parts[:1] == [".ipython"] and len(parts) >= 3
        if ipython and parts[1].startswith("profile_") and parts[2] == "startup":
            return "an IPython startup folder", False
        return None, False


def _relative(path: str, base: str) -> str | None:
    """``path`` relative to ``base`` ("" when equal), or None when it is not under it."""
    if path == base:
        return ""
    prefix = base if base.endswith("/") else base + "/"
    return path[len(prefix) :] if path.startswith(prefix) else None


def _in_project(path: str, rel: str, base: str, *, disk: bool) -> str | None:
    parts = rel.split("/")
    for part in parts:
        if part.casefold() in _PROTECTED_FOLDERS:
            return part
    if parts[-1].casefold() in _PROTECTED_FILES:
        return parts[-1]
    if disk:
        for depth in range(len(parts), 0, -1):
            folder = posixpath.join(base, *parts[:depth])
            if (depth < len(parts) or os.path.isdir(folder)) and _looks_like_git_dir(folder):
                return f"a git directory ({'/'.join(parts[:depth])})"
    return None


def _looks_like_git_dir(folder: str) -> bool:
    return (
        os.path.isfile(os.path.join(folder, "HEAD"))
        and os.path.isdir(os.path.join(folder, "objects"))
        and os.path.isdir(os.path.join(folder, "refs"))
    )


_ORDER = {"inside": 0, "additional": 1, "outside": 2}


def _severity(info: PathInfo) -> tuple[int, int, int]:
    return (info.why is not None, info.secret, _ORDER[info.where])
