"""The user's global git excludes (``core.excludesFile``), found without running git.

Engine git calls read no system or global config (``_git_safe.py``): a config file may name
programs. The global excludes still belong to "everything your repository ignores", so they
are found here by reading only the user's own global config, as git does:
``$GIT_CONFIG_GLOBAL`` when set, else ``$XDG_CONFIG_HOME/git/config`` (default
``~/.config/git/config``) then ``~/.gitconfig`` (the later wins), following ``[include]
path`` entries (``includeIf`` needs a repository: not followed). Never a repository's
``.git/config``. Without a ``core.excludesFile`` the default is ``$XDG_CONFIG_HOME/git/ignore``
(``~/.config/git/ignore``). Nothing is run: a few small files are read (each time: a
change to them counts at the next walk or snapshot).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["global_excludes_file", "global_excludes_text"]

_MAX_INCLUDE_DEPTH = 10
_SECTION = re.compile(r'\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')
_KEY = re.compile(r"([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$")


def global_excludes_file(env: Mapping[str, str] | None = None) -> Path | None:
    """The global excludes file git would read for this user (it may not exist)."""
    env = os.environ if env is None else env
    home = env.get("HOME") or ""
    xdg = env.get("XDG_CONFIG_HOME") or (f"{home}/.config" if home else "")
    chosen = env.get("GIT_CONFIG_GLOBAL")
    if chosen is not None:
        configs = [Path(chosen)] if chosen else []
    else:
        configs = [Path(xdg, "git", "config")] if xdg else []
        configs += [Path(home, ".gitconfig")] if home else []
    value: str | None = None
    for config in configs:
        value = _excludes_in(config, home, 0) or value
    if value is not None:
        return _expand(value, home)
    return Path(xdg, "git", "ignore") if xdg else None


def global_excludes_text(env: Mapping[str, str] | None = None) -> str:
    """The global excludes file's text ("" when there is none or it cannot be read)."""
    path = global_excludes_file(env)
    if path is None:
        return ""
    try:
        return path.read_text("utf-8", "replace")
    except OSError:
        return ""


def _expand(value: str, home: str) -> Path | None:
    """A config path as git expands it (``~/``); a relative one is not used here."""
    if value == "~" or value.startswith("~/"):
        value = home + value[1:] if home else value
    path = Path(value)
    return path if path.is_absolute() else None


def _excludes_in(config: Path, home: str, depth: int) -> str | None:
    """The last ``core.excludesFile`` set in ``config`` or the files it includes."""
    try:
        text = config.read_text("utf-8", "replace")
    except OSError:
        return None
    found: str | None = None
    section = ""
    for key, value, header in _entries(text):
        if header is not None:
            section = header
        elif section == "core" and key == "excludesfile" and value is not None:
            found = value
        elif section == "include" and key == "path" and value and depth < _MAX_INCLUDE_DEPTH:
            target = _expand(value, home) or (config.parent / value)
            found = _excludes_in(target, home, depth + 1) or found
    return found


def _entries(text: str) -> list[tuple[str, str | None, str | None]]:
    """``(key, value, None)`` per setting and ``("", None, section)`` per header; keys and
    section names lower case; ``[core "x"]`` is section ``core.x``."""
    out: list[tuple[str, str | None, str | None]] = []
    for raw in text.replace("\\\n", "").splitlines():
        line = raw.strip()
        while line.startswith("["):
            match = _SECTION.match(line)
            if match is None:
                line = ""
                break
            name, sub = match.group(1).lower(), match.group(2)
            out.append(("", None, f"{name}.{sub}" if sub is not None else name))
            line = line[match.end() :].strip()
        if not line or line[0] in "#;":
            continue
        match = _KEY.match(line)
        if match is not None:
            value = match.group(2)
            out.append((match.group(1).lower(), _value(value) if value is not None else None, None))
    return out


def _value(raw: str) -> str:
    """A config value: quotes removed, escapes read, a comment outside quotes dropped."""
    out: list[str] = []
    quoted = False
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            i += 1
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(raw[i], raw[i]))
        elif c == '"':
            quoted = not quoted
        elif c in "#;" and not quoted:
            break
        else:
            out.append(c)
        i += 1
    return "".join(out).strip()
