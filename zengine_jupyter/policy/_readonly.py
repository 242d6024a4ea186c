"""A conservative test for shell commands that only read (``auto_allow_read_only_bash``).

It says yes only when it can prove it: every simple command is a known reader run by its bare
name (``./cat`` is the project's own program), with no option that executes, writes or changes
state, and nothing is redirected anywhere but /dev/null. Each reader below lists what makes it
unsafe: ``sort -o`` writes, ``uniq IN OUT`` writes OUT, ``rg --pre`` and ``git grep -O`` run a
program, ``grep -R`` and ``find -L`` follow links out of the project, ``git -c`` / ``--git-dir``
change which configuration git obeys, and so on.

Reads outside the project ask as well: every operand and option value that names a path (an
absolute path, ``~``, a ``..`` that climbs out, a link that leads out) must stay inside the
project or an additional directory and must not be a secret (the data folder, ``~/.ssh``).
``/proc/self/environ`` and ``/proc/*/environ`` are outside. A ``cd`` makes relative paths
unprovable, so it asks.
"""

from __future__ import annotations

import glob
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zengine_jupyter.policy._commands import SimpleCommand, split_commands

if TYPE_CHECKING:
    from zengine_jupyter.policy._paths import ProjectPaths

__all__ = ["is_read_only"]


@dataclass(frozen=True)
class _Reader:
    short: str = ""
    """Short option letters that execute, write or change state (any cluster holding one)."""
    long: tuple[str, ...] = ()
    """Long options (``--name`` or ``--name=...``) that do."""
    paths: bool = True
    """Operands and option values may name files: each is checked to stay in the project."""
    max_operands: int | None = None
    """``uniq IN OUT``: a second operand is written."""
    values: str = ""
    """Short options whose value is the next word (not counted as an operand)."""


_READERS: dict[str, _Reader] = {
    "cat": _Reader(), "head": _Reader(values="nc"), "tail": _Reader(values="nc"),
    "wc": _Reader(long=("--files0-from",)), "nl": _Reader(), "cut": _Reader(values="bcdf"),
    "ls": _Reader(), "stat": _Reader(), "du": _Reader(long=("--files0-from",)), "df": _Reader(),
    "tree": _Reader(short="oR", long=("--fromfile",)),
    "file": _Reader(short="Cf", long=("--compile", "--files-from")),
    "grep": _Reader(short="R", long=("--dereference-recursive",)),
    "egrep": _Reader(short="R", long=("--dereference-recursive",)),
    "fgrep": _Reader(short="R", long=("--dereference-recursive",)),
    "rg": _Reader(short="zL", long=("--pre", "--pre-glob", "--search-zip", "--follow",
                                    "--hostname-bin")),
    "uniq": _Reader(max_operands=1, values="fsw"),
    "sort": _Reader(short="oT", long=("--output", "--compress-program", "--temporary-directory",
                                      "--files0-from", "--random-source")),
    "diff": _Reader(), "cmp": _Reader(), "comm": _Reader(), "column": _Reader(),
    "od": _Reader(), "hexdump": _Reader(), "jq": _Reader(),
    "md5sum": _Reader(short="c", long=("--check",)),
    "sha1sum": _Reader(short="c", long=("--check",)),
    "sha256sum": _Reader(short="c", long=("--check",)),
    "realpath": _Reader(), "readlink": _Reader(), "test": _Reader(), "[": _Reader(),
    "pwd": _Reader(paths=False), "echo": _Reader(paths=False), "printf": _Reader(paths=False),
    "tr": _Reader(paths=False), "basename": _Reader(paths=False),
    "dirname": _Reader(paths=False), "which": _Reader(paths=False), "type": _Reader(paths=False),
    "true": _Reader(paths=False), "false": _Reader(paths=False), "uname": _Reader(paths=False),
    "whoami": _Reader(paths=False), "id": _Reader(paths=False),
}  # fmt: skip
_GIT_READERS = frozenset(
    {"status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "describe",
     "shortlog", "ls-tree", "cat-file", "grep", "show-ref"}
)  # fmt: skip
_GIT_GLOBAL_OK = frozenset({"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs"})
_GIT_FORBIDDEN = (
    "--output", "--ext-diff", "--textconv", "--open-files-in-pager", "--no-index", "--filters",
    "--batch-command", "--exec", "--upload-pack", "--contents",
)  # fmt: skip
_GIT_BRANCH_LISTING = frozenset(
    {"-a", "-v", "-vv", "-r", "--list", "--all", "--remotes", "--verbose", "--show-current"}
)
_FIND_FORBIDDEN = frozenset(
    {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf", "-fls",
     "-fprint0", "-L", "-follow", "-H"}
)  # fmt: skip
_PIP_READERS = frozenset({"list", "show", "freeze", "check"})
_SPECIAL = ("/dev/null",)
_MAX_GLOB = 500


def is_read_only(command: str, where: ProjectPaths) -> bool:
    """True only when every part of ``command`` provably just reads inside ``where``."""
    parts = split_commands(command)
    return parts is not None and all(_reads(part, where) for part in parts)


def _reads(cmd: SimpleCommand, where: ProjectPaths) -> bool:
    for op, target in cmd.redirects:
        if op == "<":
            if not _inside(target, where):
                return False
        elif not (target in _SPECIAL or (op == ">&" and target.isdigit())):
            return False
    program, args = cmd.words[0], cmd.words[1:]
    if program in _READERS:
        return _reader_ok(_READERS[program], args, where)
    if program == "git":
        return _git_ok(args, where)
    if program == "find":
        return not any(a in _FIND_FORBIDDEN for a in args) and all(
            _inside(a, where) for a in args if not a.startswith(("-", "(", ")", "!"))
        )
    if program in ("pip", "pip3") or cmd.words[:3] == ("python", "-m", "pip"):
        rest = args if program in ("pip", "pip3") else args[2:]
        return len(rest) >= 1 and rest[0] in _PIP_READERS and all(_looks_safe(a) for a in rest)
    return program in ("python", "python3", "node") and list(args) in (["--version"], ["-V"])


def _reader_ok(spec: _Reader, args: tuple[str, ...], where: ProjectPaths) -> bool:
    operands = 0
    skip_value = False
    only_operands = False
    for word in args:
        if skip_value:
            skip_value = False
            if spec.paths and not _inside(word, where):
                return False
            continue
        if not only_operands and word == "--":
            only_operands = True
            continue
        if not only_operands and word.startswith("--"):
            name, eq, value = word.partition("=")
            if spec.long and name.startswith(spec.long):
                return False
            if eq and spec.paths and not _inside(value, where):
                return False
            continue
        if not only_operands and word.startswith("-") and word != "-":
            letters = word[1:]
            if any(ch in spec.short for ch in letters) or "/" in letters:
                return False
            skip_value = letters[-1:] in spec.values and len(letters) == 1
            continue
        operands += 1
        if spec.paths and word != "-" and not _inside(word, where):
            return False
    return spec.max_operands is None or operands <= spec.max_operands


def _git_ok(args: tuple[str, ...], where: ProjectPaths) -> bool:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] not in _GIT_GLOBAL_OK:
            return False  # -c, -C, --git-dir, --work-tree, --exec-path, --config-env, ...
        i += 1
    if i >= len(args):
        return False
    sub, rest = args[i], args[i + 1 :]
    if any(w.startswith(_GIT_FORBIDDEN) for w in rest):
        return False
    if sub == "grep" and any(
        w.startswith("-O") or (w.startswith("-") and not w.startswith("--") and "O" in w)
        for w in rest
    ):
        return False
    if sub == "branch":
        return all(a in _GIT_BRANCH_LISTING for a in rest)
    if sub == "remote":
        return list(rest) in ([], ["-v"])
    if sub == "reflog":
        return not rest or (rest[0] == "show" and _git_operands_inside(rest[1:], where))
    return sub in _GIT_READERS and _git_operands_inside(rest, where)


def _git_operands_inside(rest: tuple[str, ...], where: ProjectPaths) -> bool:
    return all(_inside(w, where) for w in rest if not w.startswith("-") and _pathlike(w))


def _pathlike(word: str) -> bool:
    return word.startswith(("/", "~")) or ".." in word.split("/")


def _looks_safe(word: str) -> bool:
    return not _pathlike(word) and "=" not in word


def _inside(word: str, where: ProjectPaths) -> bool:
    """``word``, as a path relative to the project root, stays inside and is not a secret.

    Words that cannot be paths outside (no ``/`` at the start, no ``~``, no ``..``) are still
    resolved, so a link inside the project that leads out is caught."""
    if word == "-":
        return True
    text = word
    if word == "~" or word.startswith("~/"):
        text = str(where.home or Path("~").expanduser()) + word[1:]
    elif word.startswith("~"):
        return False  # ~user
    if any(ch in text for ch in "*?["):
        if _pathlike(word):
            return False
        found = glob.glob(text, root_dir=where.root)  # noqa: PTH207 (as bash expands it)
        return len(found) <= _MAX_GLOB and all(_inside(p, where) for p in found)
    path = Path(posixpath.normpath(posixpath.join(str(where.root), text)))
    info = where.classify(path, write=False)
    return info.where != "outside" and not info.secret
