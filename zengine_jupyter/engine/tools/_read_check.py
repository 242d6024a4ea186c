"""Which files Glob and Grep may show: inside the project, and readable under the Read rules.

The tools that show other files' names or contents (Glob, Grep, the LSP tool's results) ask
the permission gate what it would do with a Read of each file (:class:`GateReads`). A gate
decision resolves the path and matches every rule (measured at about 0.9 ms on a busy 2-core
machine), too slow for 20,000 files, so :class:`ReadCheck` reuses a decision for files the
gate cannot tell apart: under the same base (the project, an additional directory or the
approved outside folder), matched by the same set of rules in any of their path forms, and
neither a dot-file nor in a dot-folder. That holds because the gate sees a path only through
the rules that match it, whether it is inside the project (true of every real path under the
project) and the protected names, which all start with a dot. Symlinks are decided one by one.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from zengine_jupyter.policy import CallView

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from zengine_jupyter.config import PermissionRule
    from zengine_jupyter.engine.tools._base import ToolContext
    from zengine_jupyter.policy import PermissionGate

__all__ = ["GateReads", "ReadCheck"]


class GateReads:
    """What ``gate`` would do with a Read of a path ("allow", "ask" or "deny")."""

    def __init__(self, gate: PermissionGate) -> None:
        self.gate = gate

    def __call__(self, path: Path) -> str:
        return self.gate.decide(CallView("Read", "read", (path,), None)).action

    def rules(self) -> tuple[PermissionRule, ...]:
        """Every rule that can apply to a Read."""
        policy = self.gate.policy
        return tuple(r for r in (*policy.deny, *policy.ask, *policy.allow) if r.tool == "Read")


@dataclass
class ReadCheck:
    """Which listed files may be shown: inside ``bases`` and allowed by ``may_read``.

    ``approved``: the folder or file the call itself named when it lies outside the project
    (the gate asked about it and it was approved, or a rule allowed it): inside it, only a
    Read rule's deny leaves a file out, not the "outside the project" question.
    One check serves one tool call (its cache assumes the rules do not change meanwhile).
    """

    bases: tuple[str, ...]
    may_read: Callable[[Path], str] | None = None
    approved: str | None = None
    root: str = ""
    _rules: tuple[PermissionRule, ...] | None = None
    _cache: dict[tuple[str, tuple[bool, ...]], str] = field(default_factory=dict)
    _folders: dict[str, tuple[str, tuple[tuple[PermissionRule, tuple[str, ...]], ...]] | None] = (
        field(default_factory=dict)
    )
    _inside: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def for_call(cls, target: Path, ctx: ToolContext) -> ReadCheck:
        """The check for a Glob or Grep of ``target`` in ``ctx``'s session."""
        return cls.build(target, ctx.root, ctx.additional_directories, ctx.read_decision)

    @classmethod
    def build(
        cls,
        target: Path,
        root: Path,
        additional: Iterable[Path] = (),
        may_read: Callable[[Path], str] | None = None,
    ) -> ReadCheck:
        bases = tuple(os.path.realpath(p) for p in (root, *additional))
        real = os.path.realpath(target)
        approved = None if _under(real, bases) else real
        rules = may_read.rules() if isinstance(may_read, GateReads) else None
        rules = None if rules is None else tuple(r for r in rules if r.specifier is not None)
        return cls((*bases, *([approved] if approved else [])), may_read, approved, bases[0],
                   rules)  # fmt: skip

    def allows(self, path: str | Path, real: str, *, linked: bool = False) -> bool:
        """Whether ``path`` (a file at ``real``; ``linked``: through a symlink) may be shown."""
        if not _under(real, self.bases):
            return False
        if self.may_read is None:
            return True
        if linked:  # the link and what it points to must both be readable
            return self._ok(self.may_read(Path(path)), real) and self._ok(
                self.may_read(Path(real)), real
            )
        return self._ok(self._decide(path, real), real)

    def allows_every_file_in(self, folder_real: str) -> bool:
        """Whether every file (not a link) directly in ``folder_real`` may be shown without a
        question: no Read rules to ask and the folder inside a base."""
        if self.may_read is not None:
            return False
        inside = self._inside.get(folder_real)
        if inside is None:
            inside = self._inside[folder_real] = _under(folder_real, self.bases)
        return inside

    def _ok(self, action: str, real: str) -> bool:
        if action == "allow":
            return True
        return action == "ask" and self.approved is not None and _under(real, (self.approved,))

    def _decide(self, path: str | Path, real: str) -> str:
        assert self.may_read is not None
        folder, name = os.path.split(real)
        if self._rules is None or name.startswith("."):
            return self.may_read(Path(path))
        if folder not in self._folders:
            self._folders[folder] = _plan(folder, self.bases, self.root, self._rules)
        planned = self._folders[folder]
        if planned is None:  # a dot-folder (protected paths live there): decided one by one
            return self.may_read(Path(path))
        base, plan = planned
        key = (base, tuple([any([r.matches("Read", h + name) for h in heads])
                            for r, heads in plan]))  # fmt: skip
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self.may_read(Path(path))
        return found


def _plan(
    folder: str, bases: tuple[str, ...], root: str, rules: tuple[PermissionRule, ...]
) -> tuple[str, tuple[tuple[PermissionRule, tuple[str, ...]], ...]] | None:
    """For the files of ``folder``: the base it is in, and each rule with the heads (a file's
    form is head + name) it could match. Forms: absolute, ``//``absolute, project-relative
    (plain and ``./``) and ``~/``. None for a folder inside a dot-folder."""
    base_of = max((b for b in bases if _under(folder, (b,))), key=len, default="")
    if "/." in folder[len(base_of.rstrip(os.sep)) :]:
        return None
    heads = [folder.rstrip(os.sep) + "/", "/" + folder.rstrip(os.sep) + "/"]
    for base, marks in ((root, ("", "./")), (_HOME, ("~/",))):
        if folder == base:
            heads += marks
        elif folder.startswith(base.rstrip(os.sep) + os.sep):
            rel = folder[len(base.rstrip(os.sep)) + 1 :] + "/"
            heads += [m + rel for m in marks]
    return base_of, tuple((r, tuple(h for h in heads if _may_match(r.specifier or "", h)))
                          for r in rules)  # fmt: skip


def _may_match(specifier: str, head: str) -> bool:
    """Whether a pattern could match some string that starts with ``head``: its literal start
    (up to the first character any glob dialect treats specially) must agree with it."""
    literal = _SPECIAL.split(specifier, maxsplit=1)[0]
    return head.startswith(literal) or literal.startswith(head)


_SPECIAL = re.compile(r"[*?\[\]{}\\!]")
_HOME = str(Path("~").expanduser())


def _under(real: str, bases: tuple[str, ...]) -> bool:
    return any(real == b or real.startswith(b.rstrip(os.sep) + os.sep) for b in bases)
