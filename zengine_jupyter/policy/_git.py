"""What a ``git`` command writes: the repository it works in, and sometimes more.

``git config`` writes ``.git/config`` (protected), ``--global`` ``~/.gitconfig`` (protected),
``--system`` ``/etc/gitconfig``. Read-only subcommands write nothing; the others write the
repository of the directory they run in (``-C`` moves it), ``clone`` / ``init`` / ``worktree
add`` their target (and, but for ``--bare``, its new ``.git``: protected like every nested one).
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from zengine_jupyter.policy._writers import CannotAnalyse, split_options

if TYPE_CHECKING:
    from collections.abc import Sequence

    from zengine_jupyter.policy._writers import Word

__all__ = ["git_writes"]

READ_ONLY = frozenset(
    {
        "status", "log", "diff", "show", "grep", "ls-files", "ls-tree", "ls-remote", "rev-parse",
        "rev-list", "blame", "describe", "shortlog", "cat-file", "show-ref", "help", "version",
        "whatchanged", "check-ignore", "check-attr", "name-rev", "for-each-ref", "cherry",
        "merge-base", "var", "count-objects", "verify-commit", "verify-tag",
    }
)  # fmt: skip
_CONFIG_READS = frozenset(
    {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--show-origin"}
)
_GLOBAL_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"})


def _join(base: str, path: str) -> str:
    return path if posixpath.isabs(path) or path.startswith("~") else posixpath.join(base, path)


def git_writes(args: Sequence[Word]) -> list[Word]:
    """Paths ``git ARGS`` writes, relative to the directory it is started in."""
    base = "."
    extra: list[Word] = []
    i = 0
    while i < len(args) and (args[i] is None or str(args[i]).startswith("-")):
        word = args[i]
        if word is None:
            raise CannotAnalyse("git has an option that cannot be known")
        name, eq, value = word.partition("=")
        if name in _GLOBAL_VALUE and not eq:
            if i + 1 >= len(args) or args[i + 1] is None:
                raise CannotAnalyse(f"git {name} takes a value that cannot be known")
            value, i = str(args[i + 1]), i + 1
        if name == "-C":
            base = _join(base, value)
        elif name in ("--git-dir", "--work-tree"):
            extra.append(_join(base, value))
        i += 1
    if i >= len(args):
        return extra
    sub, rest = args[i], list(args[i + 1 :])
    if sub is None:
        raise CannotAnalyse("the git subcommand cannot be known")
    extra += [_join(base, f) if f else None for f in _output_files(sub, rest)]
    if sub in READ_ONLY:
        return extra
    if sub == "config":
        return extra + _config(base, rest)
    if sub in ("clone", "init"):
        targets = [_join(base, t) if t else None for t in _target(sub, rest)]
        if "--bare" not in rest:  # a work tree's new .git: protected, as every nested repository
            targets += [posixpath.join(t, ".git") if t else None for t in targets]
        return extra + targets
    if sub == "worktree" and rest[:1] == ["add"]:
        ops = split_options(rest[1:], "bB", ("--reason",)).operands
        return [*extra, _join(base, ops[0]) if ops and ops[0] else None]
    return [*extra, base]


def _output_files(sub: str, rest: list[Word]) -> list[Word]:
    """``--output=F`` (diff, log, show...) and format-patch's ``-o DIR`` write files."""
    out: list[Word] = []
    names = ("--output", "--output-directory") + (("-o",) if sub == "format-patch" else ())
    for i, word in enumerate(rest):
        if word is None:
            continue
        name, eq, value = word.partition("=")
        if name in names:
            out.append(value if eq else (rest[i + 1] if i + 1 < len(rest) else None))
        elif sub == "format-patch" and word.startswith("-o") and len(word) > 2:
            out.append(word[2:])
    return out


def _config(base: str, rest: list[Word]) -> list[Word]:
    """The file ``git config`` writes, named so the gate can see it is protected (a hook path
    or a pager in a config runs later, outside every fence)."""
    words = [w for w in rest if w is not None]
    if any(w in _CONFIG_READS for w in words) or (len(rest) == 1 and "--global" not in words):
        return []  # reading one key
    if "--file" in words or "-f" in words:
        flag = "--file" if "--file" in words else "-f"
        idx = words.index(flag) + 1
        return [_join(base, words[idx])] if idx < len(words) else [None]
    if "--global" in words:
        return ["~/.gitconfig"]
    if "--system" in words:
        return ["/etc/gitconfig"]
    return [_join(base, ".git/config")]


def _target(sub: str, rest: list[Word]) -> list[str | None]:
    parsed = split_options(
        rest, "obuc" if sub == "clone" else "", ("--origin", "--branch", "--upload-pack",
        "--template", "--reference", "--depth", "--separate-git-dir", "--config", "--object-format",
        "--initial-branch", "--shared", "--filter", "--jobs"),
    )  # fmt: skip
    ops = parsed.operands
    if sub == "init":
        return [ops[0]] if ops else ["."]
    if len(ops) >= 2:
        return [ops[1]]
    if not ops or ops[0] is None:
        return [None]
    name = ops[0].rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return [name.removesuffix(".git") or None]
