"""The one path resolver: a path the model (or a rule, or a listing) gives, made real once.

``resolve_path`` turns text into a :class:`ResolvedPath`: ``~`` expanded, relative to the
project root, every symlink resolved (``realpath``), so what the gate checks is the file the
IO will touch. The IO then goes through :mod:`zengine_jupyter.host._safe_fs`, which walks
that resolved path without following any symlink: a symlink swapped in after the gate
decided makes the call fail instead of redirecting it.

Text that cannot be a path (a NUL, a character the filesystem cannot encode, a name over
255 bytes, a path over 4,095 bytes) is a :class:`PathError`, which is both a ``ToolError``
(the model reads it) and a ``ValueError`` (so a pydantic validator turns it into an
argument error before the gate sees the call).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from zengine_jupyter.protocol import PathError

__all__ = [
    "NAME_MAX",
    "PATH_MAX",
    "ResolvedPath",
    "check_path_text",
    "display_path",
    "resolve_path",
]

NAME_MAX = 255
"""Bytes in one file name (Linux, macOS)."""
PATH_MAX = 4095
"""Bytes in a whole path (Linux's limit less the NUL)."""


@dataclass(frozen=True)
class ResolvedPath:
    """A path resolved once; tools hand ``path`` to the gate and use the same for the IO."""

    raw: str
    """What was given."""
    path: Path
    """Absolute, with every symlink that existed at resolution time resolved."""
    root: Path
    """The project root, resolved the same way."""

    @property
    def inside(self) -> bool:
        """Within the project root (the root itself included)."""
        return self.path == self.root or self.root in self.path.parents

    def within(self, base: Path) -> bool:
        """Within ``base`` (an already resolved folder, e.g. an additional directory)."""
        return self.path == base or base in self.path.parents

    @property
    def shown(self) -> str:
        """As the model should see it: relative inside the project, else absolute."""
        return display_path(self.path, self.root)


def check_path_text(raw: str) -> str:
    """``raw`` unchanged when it can name a file; else a :class:`PathError` saying why."""
    shown = _abbrev(raw)
    if not raw:
        raise PathError("the path is empty: give a file path")
    if "\0" in raw:
        raise PathError(f"{shown} contains a NUL character, which no file name can hold")
    try:
        encoded = os.fsencode(raw)
    except UnicodeEncodeError:
        raise PathError(
            f"{shown} cannot be encoded as a file name (a lone surrogate or an invalid "
            "character): use plain text"
        ) from None
    if len(encoded) > PATH_MAX:
        raise PathError(f"the path is too long ({len(encoded):,} bytes; the limit is {PATH_MAX})")
    for part in encoded.split(b"/"):
        if len(part) > NAME_MAX:
            name = _abbrev(os.fsdecode(part))
            raise PathError(
                f"the file name {name} is too long ({len(part)} bytes; the limit is "
                f"{NAME_MAX}): use a shorter name"
            )
    return raw


def resolve_path(raw: str, root: Path) -> ResolvedPath:
    """Resolve ``raw`` against ``root`` (see the module docstring). Raises :class:`PathError`."""
    check_path_text(raw)
    real_root = Path(os.path.realpath(root))
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = real_root / path
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError) as exc:  # a symlink loop in strict mode, or a bad name
        raise PathError(f"{_abbrev(raw)} cannot be resolved: {exc}") from None
    return ResolvedPath(raw=raw, path=Path(real), root=real_root)


def display_path(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` when inside it (``root`` as given or resolved)."""
    for base in (root, Path(os.path.realpath(root))):
        try:
            return path.relative_to(base).as_posix() or "."
        except ValueError:
            continue
    return str(path)


def _abbrev(text: str) -> str:
    shown = text if len(text) <= 80 else text[:60] + "..." + text[-12:]
    return repr(shown) if any(not c.isprintable() for c in shown) else shown
