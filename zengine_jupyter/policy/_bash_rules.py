"""What the gate knows about one command line: its parts, their rule texts, what it writes.

Computed once per decision (:func:`command_facts`):

* the simple commands (``_commands.split_commands``) and, for each, the texts deny and ask
  rules are tried on and the one text allow rules must match (``_normalise``); a line the
  parser refuses is split roughly for deny and ask rules and never allowed by a rule;
* the files it names for writing (``_shell.shell_writes``: redirections, ``cp``'s target,
  ``sort -o``, ``git diff --output``, inner ``sh -c`` scripts...), each classified: the first
  protected one (the gate's step 3 asks) and the first one outside the project (no allow rule
  with a specifier covers it) are kept;
* its side writes: output redirections and output options (``sort -o``, ``git diff --output``,
  ``curl -o``...). An allow rule covers those only where an Edit would run without asking (after
  a ``cd`` they cannot be placed, so no rule covers them); the writes that are a program's job
  (``rm x``, ``cp a b``) are granted by a rule naming the program, inside the project.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zengine_jupyter.policy._commands import SimpleCommand, split_commands
from zengine_jupyter.policy._git import READ_ONLY as GIT_READ_ONLY
from zengine_jupyter.policy._git import git_writes
from zengine_jupyter.policy._normalise import (
    add_forms,
    allow_form,
    deny_forms,
    program_name,
    rough_commands,
    unwrap,
)
from zengine_jupyter.policy._shell import shell_writes
from zengine_jupyter.policy._writers import WRITERS, CannotAnalyse

if TYPE_CHECKING:
    from collections.abc import Callable

    from zengine_jupyter.config import PermissionRule
    from zengine_jupyter.policy._paths import PathInfo, ProjectPaths

__all__ = ["CommandFacts", "command_facts"]

_OUTPUT = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
_SPECIAL = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/")
_DIRECTORY_CHANGERS = frozenset({"cd", "pushd", "popd"})
_OUTPUT_WRITERS = frozenset({"sort", "uniq", "tree", "curl", "wget"})
"""Programs whose writes are output options or operands beside their job (reading, fetching)."""


@dataclass(frozen=True)
class CommandFacts:
    parts: list[SimpleCommand] | None
    forms: list[set[str]]
    """Per part, the texts deny and ask rules are tried on."""
    allow_forms: list[str | None]
    writes_known: bool
    """False: the writes cannot be found statically (``eval``, ``awk``, a variable...)."""
    protected: PathInfo | None
    outside: Path | None
    redirects: tuple[Path, ...] | None
    """Side-write targets (redirections, output options); None when they cannot be placed."""

    def rule_hit(self, rules: tuple[PermissionRule, ...], tool: str) -> str | None:
        """The first deny or ask rule matching any form of any part."""
        for rule in rules:
            if not rule.applies_to(tool):
                continue
            if rule.specifier is None:
                return str(rule)
            if any(rule.matches_command(form) for forms in self.forms for form in forms):
                return str(rule)
        return None

    def allowed_by(
        self, rules: tuple[PermissionRule, ...], tool: str, edit_runs: Callable[[Path], bool]
    ) -> str | None:
        """The allow rules covering every part, or None (see the module docstring)."""
        applicable = [r for r in rules if r.applies_to(tool)]
        if not applicable or self.protected is not None:
            return None
        bare = next((r for r in applicable if r.specifier is None), None)
        if bare is not None:
            return str(bare)  # every command, as bypass: the sandbox confines it
        if self.outside is not None:
            return None
        if self.parts is None or self.redirects is None:
            return None
        used: list[str] = []
        all_exact = True
        for part, form in zip(self.parts, self.allow_forms, strict=True):
            hit = None if form is None else next(
                (r for r in applicable if r.matches_command(form)), None
            )  # fmt: skip
            if hit is None or not _exact(hit):
                written = " ".join(part.words)  # an exact rule covers the words as written
                hit = next((r for r in applicable if _exact(r) and r.specifier == written), hit)
            if hit is None:
                return None
            all_exact = all_exact and _exact(hit)
            used.append(str(hit))
        if not self.writes_known and not all_exact:
            return None  # its writes are unknown: only a rule naming the exact command covers it
        if not all(edit_runs(target) for target in self.redirects):
            return None
        return ", ".join(dict.fromkeys(used))


def _exact(rule: PermissionRule) -> bool:
    spec = rule.specifier or "*"
    return not any(ch in spec for ch in "*?[")


def command_facts(command: str, where: ProjectPaths) -> CommandFacts:
    parts = split_commands(command)
    home = str(where.home or Path("~").expanduser())
    try:
        written: list[str] | None = shell_writes(command, str(where.root), home)
    except CannotAnalyse:
        written = None
    protected: PathInfo | None = None
    outside: Path | None = None
    for text in dict.fromkeys(written or ()):
        info = where.classify(Path(text), write=True)
        if info.why is not None and protected is None:
            protected = info
        elif info.where == "outside" and outside is None:
            outside = info.path
    if parts is None:  # no rule allows it, but its protected writes still ask (``> ~/.bashrc``)
        forms = {command.strip()}
        for words in rough_commands(command):
            add_forms(words, forms, 0)
        return CommandFacts(None, [forms], [], written is not None, protected, outside, None)
    return CommandFacts(
        parts,
        [deny_forms(p) for p in parts],
        [allow_form(p) for p in parts],
        written is not None,
        protected,
        outside,
        _redirects(parts, str(where.root)),
    )


def _redirects(parts: list[SimpleCommand], root: str) -> tuple[Path, ...] | None:
    """Side writes: output redirections and output options (``sort -o``, ``uniq IN OUT``,
    ``git diff --output``, ``curl -o``, ``find -fprint``...), as opposed to the writes that are
    a program's purpose (``rm x``, ``cp a b``), which a rule naming the program grants."""
    targets: list[str] = [
        target
        for part in parts
        for op, target in part.redirects
        if op in _OUTPUT and not target.isdigit() and target != "-"
        and not target.startswith(_SPECIAL)
    ]  # fmt: skip
    for part in parts:
        found = _output_options(unwrap(part.words).words)
        if found is None:
            return None
        targets += found
    if not targets:
        return ()
    if any(p.words[0] in _DIRECTORY_CHANGERS for p in parts):
        return None
    return tuple(Path(posixpath.normpath(posixpath.join(root, t))) for t in targets)


def _output_options(words: tuple[str, ...]) -> list[str] | None:
    """Files a command's options name for output; None when they cannot be known."""
    if not words:
        return []
    program, args = program_name(words[0]), list(words[1:])
    try:
        if program == "git":
            sub = next((w for w in args if not w.startswith("-")), None)
            found = git_writes(args) if sub in GIT_READ_ONLY or sub == "format-patch" else []
            found = [f for f in found if f != "."]  # format-patch into the current folder
        elif program == "find":
            found = [
                args[i + 1] if i + 1 < len(args) else None
                for i, w in enumerate(args)
                if w in ("-fprint", "-fprint0", "-fprintf", "-fls")
            ]
        elif program in _OUTPUT_WRITERS:
            found = WRITERS[program](args)
        else:
            return []
    except CannotAnalyse:
        return None
    if any(f is None for f in found):
        return None
    return [f for f in found if f is not None and not f.startswith(_SPECIAL)]
