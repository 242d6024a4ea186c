"""A simple command as permission rules see it: wrappers removed, the program's name bare.

``env A=1 nice -n 5 /bin/rm -rf x`` runs ``rm -rf x``. Rules are matched against that text (the
words joined by single spaces; bashlex has already removed quotes and backslashes, so ``'rm'``
and ``\\rm`` are ``rm``):

* :func:`deny_forms` are every text a deny or ask rule is tried on: the command as written, with
  its wrappers removed, the program's path stripped (``/bin/rm`` -> ``rm``), and the commands it
  runs itself (``sh -c SCRIPT``, ``find -exec``, ``xargs CMD``, ``sudo CMD``, ``env -S``);
* :func:`allow_form` is the one text an allow rule must match. Only wrappers that run the same
  program as the same user with the same arguments are removed (``command``, ``builtin``,
  ``exec``, ``nice``, ``nohup``, ``timeout``, ``stdbuf``, ``ionice``, ``setsid``, ``env`` without
  assignments); through ``sudo``, ``doas``, ``xargs``, ``env VAR=...`` or ``env -S`` no allow
  rule applies. The program keeps its path: ``Bash(ls:*)`` does not allow ``./ls``.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from zengine_jupyter.policy._commands import SimpleCommand, split_commands

__all__ = [
    "Unwrapped",
    "add_forms",
    "allow_form",
    "deny_forms",
    "program_name",
    "rough_commands",
    "unwrap",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True)
class _Wrapper:
    values: frozenset[str] = frozenset()
    """Options that take the next word (or ``--opt=value``) as their value."""
    exact: bool = True
    """The wrapped command runs as written (same user, environment and arguments)."""
    operands: int = 0
    """Leading operands before the command (timeout's duration)."""


_WRAPPERS: dict[str, _Wrapper] = {
    "command": _Wrapper(),
    "builtin": _Wrapper(),
    "exec": _Wrapper(frozenset({"-a"})),
    "nohup": _Wrapper(),
    "nice": _Wrapper(frozenset({"-n", "--adjustment"})),
    "timeout": _Wrapper(frozenset({"-s", "--signal", "-k", "--kill-after"}), operands=1),
    "stdbuf": _Wrapper(frozenset({"-i", "-o", "-e", "--input", "--output", "--error"})),
    "ionice": _Wrapper(frozenset({"-c", "-n", "--class", "--classdata"})),
    "setsid": _Wrapper(),
    "time": _Wrapper(frozenset({"-f", "--format", "-o", "--output"})),
    "env": _Wrapper(frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})),
    "sudo": _Wrapper(
        _words(
            "-u --user -g --group -C --close-from -D --chdir -h --host -p --prompt -r --role"
            " -t --type -T --command-timeout -U --other-user"
        ),
        exact=False,
    ),
    "doas": _Wrapper(_words("-u -C"), exact=False),
    "xargs": _Wrapper(
        _words(
            "-a --arg-file -d --delimiter -E -I -L -n --max-args -P --max-procs -s"
            " --max-chars --process-slot-var --max-lines --replace --eof"
        ),
        exact=False,
    ),
    "watch": _Wrapper(frozenset({"-n", "--interval", "-d"}), exact=False),
}
_CHANGES = frozenset({("env", "-C"), ("env", "--chdir"), ("time", "-o"), ("time", "--output")})
"""Options that make a wrapped command differ from the command as written."""
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "fish"})
_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_MAX_DEPTH = 3


def program_name(word: str) -> str:
    """``/usr/bin/rm`` -> ``rm``; ``\\rm`` -> ``rm``."""
    return word.lstrip("\\").rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Unwrapped:
    words: tuple[str, ...]
    """The command that runs, program as written."""
    exact: bool
    """No wrapper changed its user, environment or arguments."""
    inner: tuple[tuple[str, ...], ...] = ()
    """Other command lines it names (``env -S STRING``, split)."""


def unwrap(words: tuple[str, ...]) -> Unwrapped:
    """Remove wrappers in front of the program (any number, in any order)."""
    rest = list(words)
    exact = True
    inner: list[tuple[str, ...]] = []
    while rest and program_name(rest[0]) in _WRAPPERS:
        name = program_name(rest[0])
        spec = _WRAPPERS[name]
        exact = exact and spec.exact
        rest.pop(0)
        if name == "command" and rest and rest[0] in ("-v", "-V"):
            return Unwrapped(tuple(words), exact, tuple(inner))  # prints, does not run
        while rest and rest[0].startswith("-") and rest[0] != "-":
            flag = rest.pop(0)
            if flag == "--":
                break
            option, eq, value = flag.partition("=")
            if not option.startswith("--") and len(option) > 2 and option[:2] in spec.values:
                option, value = option[:2], flag[2:]  # -n5, -oL, -S'...'
            elif option in spec.values and not eq and rest:
                value = rest.pop(0)
            if name == "env" and option in ("-S", "--split-string"):
                exact = False
                inner.append(tuple(_split(value)))
            elif (name, option) in _CHANGES:
                exact = False
        if name in ("env", "sudo", "doas"):
            while rest and "=" in rest[0] and not rest[0].startswith("="):
                rest.pop(0)
                exact = False
        for _ in range(spec.operands):
            if rest:
                rest.pop(0)
    return Unwrapped(tuple(rest), exact, tuple(inner))


def allow_form(cmd: SimpleCommand) -> str | None:
    """The text allow rules must match, or None when no allow rule may cover ``cmd``."""
    found = unwrap(cmd.words)
    if not found.exact or not found.words or found.inner:
        return None
    return " ".join(found.words)


def deny_forms(cmd: SimpleCommand) -> set[str]:
    """Every text a deny or ask rule is tried on (see the module docstring)."""
    forms = {cmd.text.strip(), " ".join(cmd.words)}
    add_forms(cmd.words, forms, 0)
    return forms


def add_forms(words: tuple[str, ...], forms: set[str], depth: int) -> None:
    found = unwrap(words)
    for line in found.inner:
        add_forms(line, forms, depth + 1)
    if not found.words:
        return
    forms.add(" ".join(found.words))
    bare = (program_name(found.words[0]), *found.words[1:])
    forms.add(" ".join(bare))
    if depth >= _MAX_DEPTH:
        return
    program, args = bare[0], bare[1:]
    if program == "git" and args[:1] and args[0].startswith("-"):
        forms.add(" ".join(("git", *_git_subcommand(args))))  # git -C x -c k=v push -> git push
    if program in _SHELLS:
        script = _script(args)
        if script is not None:
            for text in _commands_of(script):
                add_forms(text, forms, depth + 1)
    elif program == "find":
        for i, word in enumerate(args):
            if word in _FIND_RUNS:
                tail = args[i + 1 :]
                end = next((j for j, w in enumerate(tail) if w in (";", "+")), len(tail))
                add_forms(tuple(w for w in tail[:end] if w != "{}") or tail[:end], forms,
                           depth + 1)  # fmt: skip


_GIT_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                         "--exec-path", "--super-prefix", "--list-cmds"})  # fmt: skip


def _git_subcommand(args: tuple[str, ...]) -> tuple[str, ...]:
    """git's arguments from the subcommand on (global options skipped)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _GIT_VALUED else 1
    return args[i:]


def _script(args: tuple[str, ...]) -> str | None:
    for i, word in enumerate(args):
        if not word.startswith("-") or word in ("-", "--"):
            return None
        if not word.startswith("--") and "c" in word[1:]:
            return args[i + 1] if i + 1 < len(args) else None
    return None


def _commands_of(script: str) -> list[tuple[str, ...]]:
    parts = split_commands(script)
    if parts is not None:
        return [p.words for p in parts]
    return rough_commands(script)


_SEPARATORS = frozenset({";", "&", "&&", "|", "||", "|&", "(", ")", ";;", "\n", "`", "$(", "{",
                         "}", "!", "do", "then", "else", "elif", "time", "if", "while",
                         "until", "coproc"})  # fmt: skip


def rough_commands(text: str) -> list[tuple[str, ...]]:
    """A best-effort split of a line the parser refused (for deny and ask rules only: such a
    line is never allowed by a rule). Quotes are removed; operators, reserved words and
    ``$(`` / backquotes separate commands; leading assignments are dropped."""
    try:
        lexer = shlex.shlex(text.replace("$(", " ( ").replace("`", " ( "), posix=True,
                            punctuation_chars=True)  # fmt: skip
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        tokens = text.split()
    out: list[tuple[str, ...]] = []
    current: list[str] = []
    for token in tokens:
        if token in _SEPARATORS or set(token) <= set(";&|()"):
            if current:
                out.append(tuple(current))
            current = []
        elif not current and "=" in token and not token.startswith("="):
            continue
        else:
            current.append(token)
    if current:
        out.append(tuple(current))
    return out


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()
