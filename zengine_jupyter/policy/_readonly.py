"""A conservative test for shell commands that only read (``auto_allow_read_only_bash``).

It says yes only when it can prove it: every simple command is a known reader with no
option that writes, and nothing is redirected anywhere but /dev/null. Everything else asks.
"""

from __future__ import annotations

from zengine_jupyter.policy._commands import SimpleCommand, split_commands

__all__ = ["is_read_only"]

_READERS = frozenset(
    {"cat", "head", "tail", "wc", "ls", "pwd", "echo", "printf", "which", "file", "stat",
     "du", "df", "tree", "grep", "egrep", "fgrep", "rg", "cut", "uniq", "nl", "diff", "cmp",
     "basename", "dirname", "realpath", "readlink", "true", "false", "test", "[",
     "uname", "whoami", "id", "md5sum", "sha256sum", "sha1sum", "column",
     "jq", "tr", "comm", "cd", "type", "od", "hexdump"}
)  # fmt: skip
_GIT_READERS = frozenset(
    {"status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "describe",
     "shortlog", "ls-tree", "cat-file", "grep", "reflog", "show-ref"}
)  # fmt: skip
_FIND_WRITES = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf",
                          "-fls", "-fprint0"})  # fmt: skip
_PIP_READERS = frozenset({"list", "show", "freeze", "check"})


def is_read_only(command: str) -> bool:
    """True only when every part of ``command`` provably just reads."""
    parts = split_commands(command)
    return parts is not None and all(_reads(part) for part in parts)


def _reads(cmd: SimpleCommand) -> bool:
    if any(target != "/dev/null" and op != "<" for op, target in cmd.redirects):
        return False
    program, args = cmd.words[0], cmd.words[1:]
    if program in _READERS:
        return True
    if program == "git":
        sub = next((a for a in args if not a.startswith("-")), None)
        if sub == "branch":
            return all(a in ("-a", "-v", "-vv", "-r", "--list", "--all") for a in args[1:])
        if sub == "remote":
            return list(args[1:]) in ([], ["-v"])
        return sub in _GIT_READERS and not any(a.startswith("--output") for a in args)
    if program == "find":
        return not any(a in _FIND_WRITES for a in args)
    if program == "sort":
        return not any(a == "-o" or a.startswith("--output") for a in args)
    if program in ("pip", "pip3") or cmd.words[:3] in (("python", "-m", "pip"),):
        rest = args if program in ("pip", "pip3") else args[2:]
        return bool(rest) and rest[0] in _PIP_READERS
    return bool(program in ("python", "python3", "node") and list(args) in (["--version"], ["-V"]))
