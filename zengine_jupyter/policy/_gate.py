"""The permission gate: may this tool call run, must it ask, or is it denied?

Order (first match wins):

1. a **deny** rule matches: deny;
2. **plan** mode and the call writes, runs a command or is an MCP tool: deny (read-only mode);
3. a **protected** path or a path **outside** the project: ask, in every mode (accept_edits and
   bypass too) and whatever allow rules say. For edits that is any protected path (``.git``,
   ``.z-engine``, ``.claude``, ``.mcp.json``, the user's startup files, see ``_paths.py``) and
   any path outside the project and the additional directories; for reads, a path outside or a
   secret one (the data folder, ``~/.ssh``): reading ``.git/config`` inside the project stays
   free. For commands, a file the command names for writing (a redirection, ``cp``'s target,
   ``sort -o``, ``git diff --output``) that is protected (a write outside the project is
   checked in step 5);
4. an **ask** rule matches: ask (even in bypass, even if allowed);
5. an **allow** rule matches: allow. For Bash, every part of a compound command must be
   covered, in its normalised form (``_normalise.py``), and what it writes must stay inside the
   project: a redirection only where an edit would run without asking. A command that cannot
   be taken apart is never allowed by a rule. Only the bare rule ``Bash`` ("every command",
   like bypass) covers a command that writes outside the project: an unrestricted shell can
   write anywhere through a variable anyway, and the sandbox is what confines it;
6. **bypass** mode: allow;
7. the mode's default: reading tools run; MCP tools ask; edits run in accept_edits and ask
   otherwise; commands ask unless ``auto_allow_read_only_bash`` proves them read-only, or
   the sandbox's auto-allow check (passed in by the engine) clears them.

Code for the user's kernel (``RunCell``, kind ``kernel``) has its own, shorter order: see
``_code_rules.py``.

Deny-then-plan-then-ask matters: a project's ``ask = ["Bash"]`` must not turn plan mode's
"no" into a question (found by the settings property test).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from zengine_jupyter.config import PermissionRule
from zengine_jupyter.policy._bash_rules import command_facts
from zengine_jupyter.policy._code_rules import code_rule_allows, code_rule_hit
from zengine_jupyter.policy._paths import PathInfo, ProjectPaths
from zengine_jupyter.policy._readonly import is_read_only

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from zengine_jupyter.config import PermissionMode, PermissionsSettings

__all__ = ["CallView", "GateDecision", "PermissionGate", "PermissionPolicy"]

CallKind = Literal["read", "edit", "execute", "other", "mcp", "kernel"]
Source = Literal["rule", "mode", "outside", "protected", "read_only_bash", "auto_allow"]
_FAMILY = {"read": "Read", "edit": "Edit"}
_NAMED_MAX = 1024


@dataclass(frozen=True)
class CallView:
    """What the gate needs to know about one tool call."""

    tool: str
    kind: CallKind
    paths: tuple[Path, ...] = ()
    command: str | None = None


@dataclass(frozen=True)
class GateDecision:
    action: Literal["allow", "ask", "deny"]
    reason: str
    source: Source
    rule: str | None = None


@dataclass(frozen=True)
class PermissionPolicy:
    """The effective permission settings, parsed once per settings load."""

    mode: PermissionMode = "default"
    allow: tuple[PermissionRule, ...] = ()
    ask: tuple[PermissionRule, ...] = ()
    deny: tuple[PermissionRule, ...] = ()
    additional_directories: tuple[Path, ...] = ()
    auto_allow_read_only_bash: bool = False

    @classmethod
    def from_lists(
        cls,
        *,
        mode: PermissionMode = "default",
        allow: Sequence[str] = (),
        ask: Sequence[str] = (),
        deny: Sequence[str] = (),
        additional_directories: Sequence[Path] = (),
        auto_allow_read_only_bash: bool = False,
    ) -> PermissionPolicy:
        parse = PermissionRule.parse
        return cls(
            mode=mode,
            allow=tuple(map(parse, allow)),
            ask=tuple(map(parse, ask)),
            deny=tuple(map(parse, deny)),
            additional_directories=tuple(p.resolve() for p in additional_directories),
            auto_allow_read_only_bash=auto_allow_read_only_bash,
        )

    @classmethod
    def from_settings(cls, permissions: PermissionsSettings, root: Path) -> PermissionPolicy:
        """The policy of effective ``[permissions]`` (relative directories are under ``root``)."""
        return cls.from_lists(
            mode=permissions.mode,
            allow=permissions.allow,
            ask=permissions.ask,
            deny=permissions.deny,
            additional_directories=[
                root / Path(d).expanduser() for d in permissions.additional_directories
            ],
            auto_allow_read_only_bash=permissions.auto_allow_read_only_bash,
        )

    def with_rule(self, rule: str, kind: Literal["allow", "deny"] = "allow") -> PermissionPolicy:
        """This policy plus one more rule (an "always allow" / "always deny") applied at once."""
        parsed = PermissionRule.parse(rule)
        if kind == "deny":
            return replace(self, deny=(*self.deny, parsed))
        return replace(self, allow=(*self.allow, parsed))


@dataclass
class PermissionGate:
    """Decides tool calls for one session's project under a :class:`PermissionPolicy`."""

    root: Path
    policy: PermissionPolicy = field(default_factory=PermissionPolicy)
    auto_allow: Callable[[str], bool] | None = None
    """The sandbox's check: True when every write a command names stays writable."""
    _where: tuple[tuple[Path, tuple[Path, ...]], ProjectPaths] | None = field(
        default=None, repr=False, compare=False
    )
    _named: tuple[PermissionPolicy, dict[tuple[str, str], GateDecision]] | None = field(
        default=None, repr=False, compare=False
    )
    """Decisions on calls that name no path and no command (MCP tools, ``other`` tools): a
    function of the policy and the view alone, kept per policy (a new policy object, e.g.
    after "always allow", starts afresh)."""

    @property
    def where(self) -> ProjectPaths:
        """The project's places (root, additional directories, the user's files), cached."""
        key = (self.root, self.policy.additional_directories)
        if self._where is None or self._where[0] != key:
            self._where = (key, ProjectPaths.of(*key))
        return self._where[1]

    def decide(self, call: CallView) -> GateDecision:
        if call.kind == "kernel":
            return self._decide_code(call, call.command or "")
        if call.command is not None and call.kind == "execute":
            return self._decide_command(call, call.command)
        if call.paths or call.command is not None:
            return self._decide_paths(call)
        named = self._named
        if named is None or named[0] is not self.policy or len(named[1]) >= _NAMED_MAX:
            named = self._named = (self.policy, {})
        key = (call.tool, call.kind)  # the whole view when it has no path and no command
        decision = named[1].get(key)
        if decision is None:
            decision = named[1][key] = self._decide_paths(call)
        return decision

    # ------------------------------------------------------------------ paths
    def _decide_paths(self, call: CallView) -> GateDecision:
        policy = self.policy
        write = call.kind == "edit"
        infos = [self.where.classify(p, write=write) for p in call.paths]
        if (rule := self._path_rule(policy.deny, call, infos, every=False)) is not None:
            return GateDecision("deny", f"denied by the rule {rule}", "rule", rule)
        if policy.mode == "plan" and call.kind in ("edit", "execute", "mcp"):
            return GateDecision("deny", "plan mode is read-only: no edits or commands", "mode")
        if (guarded := _guarded(infos, write=write)) is not None:
            return guarded
        if (rule := self._path_rule(policy.ask, call, infos, every=False)) is not None:
            return GateDecision("ask", f"the rule {rule} asks first", "rule", rule)
        if (rule := self._path_rule(policy.allow, call, infos, every=True)) is not None:
            return GateDecision("allow", f"allowed by the rule {rule}", "rule", rule)
        if policy.mode == "bypass":
            return GateDecision("allow", "bypass mode", "mode")
        if call.kind in ("read", "other"):
            return GateDecision("allow", "reading tools run without asking", "mode")
        if call.kind == "mcp":
            return GateDecision("ask", "MCP tools ask until a rule allows them", "mode")
        if call.kind == "edit" and policy.mode == "accept_edits":
            return GateDecision("allow", "accept_edits: edits inside the project run", "mode")
        if call.kind == "edit":
            return GateDecision("ask", "edits ask in default mode", "mode")
        return GateDecision("ask", "this tool asks in this mode", "mode")

    def _path_rule(
        self,
        rules: tuple[PermissionRule, ...],
        call: CallView,
        infos: list[PathInfo],
        *,
        every: bool,
    ) -> str | None:
        """The rule(s) covering ``call``: with ``every`` (allow), each path must be covered by
        some rule (its resolved forms); otherwise one hit on any form is enough."""
        names = {call.tool, _FAMILY.get(call.kind, call.tool)}
        applicable: list[PermissionRule] = []
        for rule in rules:
            if rule.tool in names:
                if rule.specifier is None:
                    return str(rule)
                applicable.append(rule)
            elif rule.matches(call.tool):  # mcp__server covers mcp__server__tool
                return str(rule)
        if not applicable or not call.paths:
            return None
        used: list[str] = []
        for path, info in zip(call.paths, infos, strict=True):
            forms = self._forms(info.path)
            if not every:
                forms += self._forms(self.root / path if not path.is_absolute() else path)
            hit = next((r for r in applicable if any(r.matches_path(f) for f in forms)), None)
            if hit is None and every:
                return None
            if hit is not None and not every:
                return str(hit)
            if hit is not None:
                used.append(str(hit))
        return ", ".join(dict.fromkeys(used)) if used else None

    def _forms(self, path: Path) -> list[str]:
        text = os.path.normpath(path)
        root = str(self.where.root)
        if text.startswith(root + os.sep):
            return [text[len(root) + 1 :], text]
        return [text]

    def edit_runs(self, path: Path) -> bool:
        """An Edit of ``path`` would run without asking (redirections in allowed commands)."""
        call = CallView("Edit", "edit", (path,))
        decision = self._decide_paths(call)
        return decision.action == "allow"

    # ------------------------------------------------------------------ kernel code
    def _decide_code(self, call: CallView, code: str) -> GateDecision:
        """RunCell: see ``_code_rules.py`` (no sandbox, no paths: rules, plan, bypass)."""
        policy = self.policy
        if (rule := code_rule_hit(policy.deny, call.tool, code)) is not None:
            return GateDecision("deny", f"denied by the rule {rule}", "rule", rule)
        if policy.mode == "plan":
            return GateDecision(
                "deny", "plan mode is read-only: no code runs in the kernel", "mode"
            )
        if (rule := code_rule_hit(policy.ask, call.tool, code)) is not None:
            return GateDecision("ask", f"the rule {rule} asks first", "rule", rule)
        if (rule := code_rule_allows(policy.allow, call.tool, code)) is not None:
            return GateDecision("allow", f"allowed by the rule {rule}", "rule", rule)
        if policy.mode == "bypass":
            return GateDecision("allow", "bypass mode", "mode")
        return GateDecision(
            "ask", "code in your kernel asks first (it cannot be sandboxed)", "mode"
        )

    # ------------------------------------------------------------------ commands
    def _decide_command(self, call: CallView, command: str) -> GateDecision:
        policy = self.policy
        facts = command_facts(command, self.where)
        if (rule := facts.rule_hit(policy.deny, call.tool)) is not None:
            return GateDecision("deny", f"denied by the rule {rule}", "rule", rule)
        if policy.mode == "plan":
            return GateDecision("deny", "plan mode is read-only: no edits or commands", "mode")
        if facts.protected is not None:
            info = facts.protected
            return GateDecision(
                "ask",
                f"the command writes {info.path}, a protected path ({info.why}): "
                "writes there always ask",
                "protected",
            )
        if (rule := facts.rule_hit(policy.ask, call.tool)) is not None:
            return GateDecision("ask", f"the rule {rule} asks first", "rule", rule)
        if (rule := facts.allowed_by(policy.allow, call.tool, self.edit_runs)) is not None:
            return GateDecision("allow", f"allowed by the rule {rule}", "rule", rule)
        if policy.mode == "bypass":
            return GateDecision("allow", "bypass mode", "mode")
        if policy.auto_allow_read_only_bash and is_read_only(command, self.where):
            return GateDecision("allow", "a read-only command", "read_only_bash")
        if self.auto_allow is not None and self.auto_allow(command):
            return GateDecision("allow", "sandboxed: it writes only where it may", "auto_allow")
        return GateDecision("ask", "commands ask in this mode", "mode")


def _guarded(infos: list[PathInfo], *, write: bool) -> GateDecision | None:
    """Step 3 for tools with paths: protected or outside asks, whatever the mode and rules."""
    for info in infos:
        if write and info.why is not None:
            return GateDecision(
                "ask",
                f"{info.path} is a protected path ({info.why}): edits there always ask",
                "protected",
            )
        if info.secret:
            return GateDecision(
                "ask", f"{info.path} is in {info.why}: reading it always asks", "protected"
            )
        if info.where == "outside":
            what = "edits there always ask" if write else "reading it asks"
            return GateDecision("ask", f"{info.path} is outside the project: {what}", "outside")
    return None
