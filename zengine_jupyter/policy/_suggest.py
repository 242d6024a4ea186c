"""The rule "always allow" offers for a call: never one that allows arbitrary code.

For a command the offer is a word-bounded prefix of its first two words (``Bash(git log:*)``),
except when those words would allow any program or any code: an interpreter given inline code
(``python3 -c``, ``node -e``, ``perl -e``, ``ruby -e``, ``php -r``, ``deno eval``, ``sh -c``...),
``eval``, ``exec``, ``xargs``, ``env``, ``sudo``, ``find -exec``, a wrapper, or a command the
parser cannot take apart. Then the offer is the exact command, which allows that command only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.policy._code_rules import single_statement
from zengine_jupyter.policy._commands import split_commands
from zengine_jupyter.policy._normalise import allow_form, program_name, unwrap

if TYPE_CHECKING:
    from pathlib import Path

    from zengine_jupyter.policy._gate import CallView

__all__ = ["suggest_rule"]

_FAMILY = {"read": "Read", "edit": "Edit"}
_INTERPRETERS = frozenset(
    {"python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "ruby",
     "perl", "php", "lua", "R", "Rscript", "julia", "bash", "sh", "dash", "zsh", "ksh", "fish",
     "pwsh", "osascript", "tclsh", "awk", "gawk", "jshell", "irb", "ipython", "uv", "npx",
     "pipx", "make", "git"}
)  # fmt: skip
"""Programs whose words after the first two may still be code (checked word by word)."""
_CODE_FLAGS = frozenset({"-c", "-e", "-E", "-r", "-m", "-x", "--eval", "--exec", "--command",
                         "eval", "exec", "run", "-p", "--print", "-i", "-l", "-s"})  # fmt: skip
_NEVER_PREFIX = frozenset(
    {"eval", "exec", "xargs", "env", "sudo", "doas", "su", "source", ".", "command", "builtin",
     "nice", "nohup", "timeout", "stdbuf", "time", "watch", "parallel", "ssh", "find", "sh",
     "bash", "dash", "zsh", "ksh", "fish"}
)  # fmt: skip


def suggest_rule(call: CallView, root: Path) -> str:
    """The rule "always allow" would write for a call like this one."""
    if call.kind == "kernel":  # the exact line, as a glob; longer code: every RunCell
        line = single_statement(call.command or "")
        return call.tool if line is None else f"{call.tool}({_glob_escape(line)})"
    if call.kind == "mcp" or not (call.command or call.paths):
        return call.tool
    if call.kind == "execute" and call.tool != "Bash":  # Verify: a Bash rule would not cover it
        return call.tool
    if call.command is not None:
        return f"Bash({_command_rule(call.command)})"
    path = call.paths[0].resolve()
    try:
        shown = path.relative_to(root.resolve()).as_posix()
    except ValueError:
        shown = str(path)
    family = _FAMILY.get(call.kind, call.tool)
    return f"{family}({shown})"


def _glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def _command_rule(command: str) -> str:
    exact = command.strip()
    parts = split_commands(command)
    if not parts or len(parts) != 1 or parts[0].redirects:
        return exact
    form = allow_form(parts[0])
    words = unwrap(parts[0].words).words
    if form is None or len(words) < 2 or words != parts[0].words:
        return exact
    program = program_name(words[0])
    if program in _NEVER_PREFIX or _runs_code(program, words[1:]):
        return form
    return f"{words[0]} {words[1]}:*"


def _runs_code(program: str, args: tuple[str, ...]) -> bool:
    """An interpreter whose second word is inline code, or whose arguments could be."""
    if program not in _INTERPRETERS and not program.startswith(("python", "node", "ruby", "perl",
                                                                 "php", "lua")):  # fmt: skip
        return False
    first = args[0]
    if first.startswith("-") or first in _CODE_FLAGS:
        return True  # python3 -c, node -e, perl -E, php -r, bash -c, python -m ...
    return program in ("deno", "bun", "npx", "uv", "pipx", "make", "git") and first in (
        "eval",
        "run",
        "x",
        "exec",
        "tool",
        "-c",
        "-C",
    )
