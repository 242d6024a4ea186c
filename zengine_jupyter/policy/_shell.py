"""Every file a shell command line names for writing, found with a real parser (bashlex).

The walk follows lists (``;``, ``&&``, ``||``, newlines), pipelines, groups, subshells, ``if`` /
``for`` / ``while`` bodies, functions, and command and process substitutions (they run too).
It tracks ``cd`` conservatively: after ``cd DIR`` joined by ``&&`` the directory is DIR; joined
any other way it may be either, and both are checked. Anything it cannot follow raises
:class:`CannotAnalyse`: a parse error or an unsupported construct, ``eval`` and friends, a
variable or substitution in a write path or a ``cd``, brace expansion or a glob in a directory
part, ``cd`` inside a group, loop or pipeline.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any

from zengine_jupyter.policy._commands import parse, parse_error
from zengine_jupyter.policy._git import git_writes
from zengine_jupyter.policy._writers import ASK_PROGRAMS, WRITERS, CannotAnalyse

if TYPE_CHECKING:
    from collections.abc import Sequence

    from zengine_jupyter.policy._writers import Word

__all__ = ["shell_writes"]

_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})
_WRAPPERS = frozenset({"command", "builtin", "nohup", "exec", "stdbuf", "nice", "ionice", "setsid"})
_OUTPUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
_SPECIAL_FILES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/")
_MAX_DEPTH = 4


_HOME_WORD = re.compile(r"\$(?:HOME|\{HOME\})(/[^$`]*)?")


def shell_writes(command: str, cwd: str, home: str, depth: int = 0) -> list[str]:
    """Absolute, normalised paths ``command`` (run in ``cwd``) names for writing."""
    if depth > _MAX_DEPTH:
        raise CannotAnalyse("shells nested too deeply")
    try:
        trees = parse(command)
    except parse_error() as exc:
        raise CannotAnalyse(f"the shell parser cannot read it ({exc.message})") from exc
    except Exception as exc:  # bashlex fails in many ways on what it does not support
        raise CannotAnalyse(f"the shell parser cannot read it ({type(exc).__name__})") from exc
    walker = _Walker(home, depth)
    cwds: tuple[str, ...] = (posixpath.normpath(cwd),)
    try:
        for tree in trees:
            cwds = walker.sequence([tree], cwds, top=True)
    except (AttributeError, TypeError, IndexError) as exc:  # a node shape not handled here
        raise CannotAnalyse(f"unsupported shell construct ({type(exc).__name__})") from exc
    return walker.writes


class _Walker:
    def __init__(self, home: str, depth: int) -> None:
        self.home = home
        self.depth = depth
        self.writes: list[str] = []

    # ------------------------------------------------------------ structure
    def sequence(
        self, nodes: Sequence[Any], cwds: tuple[str, ...], *, top: bool
    ) -> tuple[str, ...]:
        """Walk nodes run one after another; returns the possible directories afterwards.

        A ``cd`` may fail: only ``&&`` skips what follows it then. So every directory that was
        current before a ``cd`` in an ``&&`` chain stays possible once the chain ends (``;``,
        ``||``, ``&``, a newline).
        """
        fallbacks: tuple[str, ...] = ()
        for node in nodes:
            if node.kind == "operator":
                if node.op != "&&":
                    cwds, fallbacks = _union(cwds, fallbacks), ()
                continue
            if node.kind == "list":
                cwds = self.sequence(node.parts, cwds, top=top)
            elif node.kind == "command" and top:
                after = self.command(node, cwds)
                if after != cwds:
                    fallbacks, cwds = _union(fallbacks, cwds), after
            else:
                self.nested(node, cwds)
        return _union(cwds, fallbacks)

    def nested(self, node: Any, cwds: tuple[str, ...]) -> None:
        """A node whose directory changes do not carry over (pipeline part, group, loop...)."""
        kind = node.kind
        if kind == "command":
            after = self.command(node, cwds)
            if after != cwds:
                raise CannotAnalyse("cd inside a pipeline, group or loop is not followed")
        elif kind in ("pipeline", "list"):
            for part in node.parts:
                if part.kind not in ("pipe", "operator"):
                    self.nested(part, cwds)
        elif kind == "compound":
            for part in node.list:
                if part.kind not in ("reservedword", "operator"):
                    self.nested(part, cwds)
            self.redirects(getattr(node, "redirects", []), cwds)
        elif kind in ("if", "for", "while", "until"):
            for part in node.parts:
                if part.kind in ("reservedword", "operator", "pipe"):
                    continue
                if part.kind == "word":
                    self.word(part, cwds)
                else:
                    self.nested(part, cwds)
        elif kind == "function":
            self.nested(node.body, cwds)
        elif kind not in ("reservedword", "operator", "pipe"):
            raise CannotAnalyse(f"unsupported shell construct: {kind}")

    # ------------------------------------------------------------ words
    def word(self, node: Any, cwds: tuple[str, ...]) -> Word:
        """The literal text of a word, or None when the shell computes it at run time.

        Substitutions inside it are commands too: they are walked.
        """
        dynamic = False
        for part in getattr(node, "parts", []):
            if part.kind in ("commandsubstitution", "processsubstitution"):
                self.nested(part.command, cwds)
                dynamic = True
            elif part.kind == "parameter" or (part.kind == "tilde" and part.value != "~"):
                dynamic = True
        text: str = node.word
        home = _HOME_WORD.fullmatch(text)
        if home is not None:  # $HOME/.bashrc is as well known as ~/.bashrc
            return self.home + (home.group(1) or "")
        if dynamic or "$" in text or "`" in text:
            return None
        return self.expand_home(text)

    def expand_home(self, text: str) -> str:
        return self.home + text[1:] if text == "~" or text.startswith("~/") else text

    def redirects(self, nodes: Sequence[Any], cwds: tuple[str, ...]) -> None:
        for node in nodes:
            if node.kind != "redirect":
                continue
            target = node.output
            if isinstance(target, int) or node.type not in _OUTPUT_REDIRECTS:
                if not isinstance(target, int) and target is not None:
                    self.word(target, cwds)
                continue
            if target.word in ("-",) or target.word.isdigit():
                continue
            self.add(self.word(target, cwds), cwds, "a redirection")

    def add(self, path: Word, cwds: tuple[str, ...], what: str) -> None:
        if path is None:
            raise CannotAnalyse(f"{what} writes to a path known only at run time")
        if any(ch in path for ch in "{}") and "," in path:
            raise CannotAnalyse(f"{what} writes to a brace expansion")
        directory = path.rpartition("/")[0]
        if any(ch in directory for ch in "*?["):
            raise CannotAnalyse(f"{what} writes through a glob in a directory name")
        if path.startswith(_SPECIAL_FILES):
            return
        path = self.expand_home(path)  # a program's own default, such as git's ~/.gitconfig
        for cwd in cwds:
            self.writes.append(posixpath.normpath(posixpath.join(cwd, path)))

    # ------------------------------------------------------------ commands
    def command(self, node: Any, cwds: tuple[str, ...]) -> tuple[str, ...]:
        words: list[Word] = []
        for part in node.parts:
            if part.kind == "word":
                words.append(self.word(part, cwds))
            elif part.kind == "assignment":
                self.word(part, cwds)
        self.redirects(node.parts, cwds)
        while words and words[0] in _WRAPPERS | {"env", "timeout"}:
            words = _strip_wrapper(words)
        if not words:
            return cwds
        program = words[0]
        args = words[1:]
        if program is None:
            raise CannotAnalyse("the program to run is known only at run time")
        program = program.rsplit("/", 1)[-1]
        if program == "cd":
            return self._cd(args, cwds)
        if program in ASK_PROGRAMS:
            raise CannotAnalyse(ASK_PROGRAMS[program])
        if program in _SHELLS and _command_flag(args) is not None:
            return self._inner_shell(args, cwds)
        if program == "git":
            targets = git_writes(args)
        elif program in WRITERS:
            targets = WRITERS[program](args)
        else:
            return cwds
        for target in targets:
            self.add(target, cwds, program)
        return cwds

    def _inner_shell(self, args: list[Word], cwds: tuple[str, ...]) -> tuple[str, ...]:
        at = _command_flag(args)
        script = args[at + 1] if at is not None and at + 1 < len(args) else None
        if script is None:
            raise CannotAnalyse("sh -c runs a script known only at run time")
        for cwd in cwds:
            self.writes += shell_writes(script, cwd, self.home, self.depth + 1)
        return cwds

    def _cd(self, args: list[Word], cwds: tuple[str, ...]) -> tuple[str, ...]:
        operands = [a for a in args if a is None or not a.startswith("-") or a == "-"]
        target = operands[0] if operands else self.home
        if target is None or target == "-" or any(ch in target for ch in "*?[{"):
            raise CannotAnalyse("cd to a directory known only at run time")
        return tuple(dict.fromkeys(posixpath.normpath(posixpath.join(c, target)) for c in cwds))


_VALUE_FLAGS: dict[str, frozenset[str]] = {
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p", "--class", "--classdata"}),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "env": frozenset({"-u", "--unset"}),
    "exec": frozenset({"-a"}),
}
_ENV_ASK = ("-C", "--chdir", "-S", "--split-string")


def _command_flag(args: Sequence[Word]) -> int | None:
    """Where ``sh``'s ``-c`` is (alone or in a cluster such as ``-lc``), before any operand."""
    for i, word in enumerate(args):
        if word is None or not word.startswith("-") or word in ("-", "--"):
            return None
        if not word.startswith("--") and "c" in word[1:]:
            return i
    return None


def _strip_wrapper(words: list[Word]) -> list[Word]:
    """``env A=1 cmd`` -> ``cmd``; ``timeout 5 cmd`` -> ``cmd``; ``nice -n 5 cmd`` -> ``cmd``."""
    head, rest = words[0], words[1:]
    takes_value = _VALUE_FLAGS.get(str(head), frozenset())
    while (
        rest
        and rest[0] is not None
        and (rest[0].startswith("-") or (head == "env" and "=" in rest[0]))
    ):
        flag = rest.pop(0) or ""
        if head == "env" and flag.startswith(_ENV_ASK):
            raise CannotAnalyse("env -C / -S changes the directory or splits the command")
        if flag in takes_value and rest:
            rest.pop(0)
    if head == "timeout" and rest:
        rest.pop(0)  # the duration
    if head == "env" and rest and rest[0] is None:
        raise CannotAnalyse("env runs a program known only at run time")
    return rest


def _union(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*first, *second)))
