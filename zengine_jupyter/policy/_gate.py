"""The permission gate: may this tool call run, must it ask, or is it denied?

Order (first match wins):

1. a **deny** rule matches: deny;
2. **plan** mode and the call writes, runs a command or is an MCP tool: deny (read-only mode);
3. an **ask** rule matches: ask (even in bypass, even if allowed);
4. an **allow** rule matches: allow (for Bash, every part of a compound command must be
   covered; a command that cannot be taken apart is never allowed by a rule);
5. **bypass** mode: allow;
6. a path **outside** the project and the additional directories: ask;
7. the mode's default: reading tools run; MCP tools ask; edits run in accept_edits and ask
   otherwise; commands ask unless ``auto_allow_read_only_bash`` proves them read-only, or
   the sandbox's auto-allow check (passed in by the engine) clears them.

Deny-then-plan-then-ask matters: a project's ``ask = ["Bash"]`` must not turn plan mode's
"no" into a question (found by the settings property test).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from zengine_jupyter.config._rules import PermissionRule
from zengine_jupyter.policy._commands import split_commands
from zengine_jupyter.policy._readonly import is_read_only

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from zengine_jupyter.config._schema import PermissionsSettings

__all__ = ["CallView", "GateDecision", "PermissionGate", "PermissionPolicy", "suggest_rule"]

Mode = Literal["default", "accept_edits", "plan", "bypass"]
CallKind = Literal["read", "edit", "execute", "other", "mcp"]
_FAMILY = {"read": "Read", "edit": "Edit"}


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
    source: Literal["rule", "mode", "outside", "read_only_bash", "auto_allow"]
    rule: str | None = None


@dataclass(frozen=True)
class PermissionPolicy:
    """The effective permission settings, parsed once per settings load."""

    mode: Mode = "default"
    allow: tuple[PermissionRule, ...] = ()
    ask: tuple[PermissionRule, ...] = ()
    deny: tuple[PermissionRule, ...] = ()
    additional_directories: tuple[Path, ...] = ()
    auto_allow_read_only_bash: bool = False

    @classmethod
    def from_lists(
        cls,
        *,
        mode: Mode = "default",
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

    def with_rule(self, rule: str) -> PermissionPolicy:
        """This policy plus one more allow rule (an "always allow" applied at once)."""
        return PermissionPolicy(
            self.mode, (*self.allow, PermissionRule.parse(rule)), self.ask, self.deny,
            self.additional_directories, self.auto_allow_read_only_bash,
        )  # fmt: skip


@dataclass
class PermissionGate:
    """Decides tool calls for one session's project under a :class:`PermissionPolicy`."""

    root: Path
    policy: PermissionPolicy = field(default_factory=PermissionPolicy)
    auto_allow: Callable[[str], bool] | None = None
    """The sandbox's check: True when every write a command names stays writable."""

    def decide(self, call: CallView) -> GateDecision:
        policy = self.policy
        if (rule := self._match(policy.deny, call, every=False)) is not None:
            return GateDecision("deny", f"denied by the rule {rule}", "rule", rule)
        if policy.mode == "plan" and call.kind in ("edit", "execute", "mcp"):
            return GateDecision("deny", "plan mode is read-only: no edits or commands", "mode")
        if (rule := self._match(policy.ask, call, every=False)) is not None:
            return GateDecision("ask", f"the rule {rule} asks first", "rule", rule)
        if (rule := self._match(policy.allow, call, every=True)) is not None:
            return GateDecision("allow", f"allowed by the rule {rule}", "rule", rule)
        if policy.mode == "bypass":
            return GateDecision("allow", "bypass mode", "mode")
        outside = [p for p in call.paths if not self._inside(p)]
        if outside:
            return GateDecision("ask", f"{outside[0]} is outside the project", "outside")
        return self._default(call)

    def _default(self, call: CallView) -> GateDecision:
        if call.kind in ("read", "other"):
            return GateDecision("allow", "reading tools run without asking", "mode")
        if call.kind == "mcp":
            return GateDecision("ask", "MCP tools ask until a rule allows them", "mode")
        if call.kind == "edit":
            if self.policy.mode == "accept_edits":
                return GateDecision("allow", "accept_edits: edits inside the project run", "mode")
            return GateDecision("ask", "edits ask in default mode", "mode")
        command = call.command or ""
        if self.policy.auto_allow_read_only_bash and is_read_only(command):
            return GateDecision("allow", "a read-only command", "read_only_bash")
        if self.auto_allow is not None and self.auto_allow(command):
            return GateDecision("allow", "sandboxed: it writes only where it may", "auto_allow")
        return GateDecision("ask", "commands ask in this mode", "mode")

    def _inside(self, path: Path) -> bool:
        resolved = path.resolve()
        return any(
            resolved == base or base in resolved.parents
            for base in (self.root.resolve(), *self.policy.additional_directories)
        )

    def _match(
        self, rules: tuple[PermissionRule, ...], call: CallView, *, every: bool
    ) -> str | None:
        """The rule(s) that cover ``call``. With ``every`` (allow rules), each part of a
        compound command and each path must be covered by some rule; otherwise one hit
        is enough (deny and ask rules)."""
        names = {call.tool, _FAMILY.get(call.kind, call.tool)}
        applicable: list[tuple[PermissionRule, str]] = []
        for rule in rules:
            if rule.tool in names:
                applicable.append((rule, rule.tool))
            elif rule.matches(call.tool):  # mcp__server covers mcp__server__tool
                return str(rule)
        for rule, _ in applicable:
            if rule.specifier is None:
                return str(rule)
        items = self._items(call)
        if items is None:  # a command that cannot be taken apart: allow rules never apply
            whole = (call.command or "").strip()
            hit = None if every else next((r for r, t in applicable if r.matches(t, whole)), None)
            return str(hit) if hit else None
        used: list[str] = []
        for forms in items:
            hit = next(
                (r for r, t in applicable if any(r.matches(t, form) for form in forms)), None
            )
            if hit is None and every:
                return None
            if hit is not None:
                if not every:
                    return str(hit)
                used.append(str(hit))
        return ", ".join(dict.fromkeys(used)) if every and used else None

    def _items(self, call: CallView) -> list[list[str]] | None:
        """What rule specifiers are matched against: each simple command, or each path in
        its project-relative and absolute forms. None: a command that cannot be split."""
        if call.command is not None:
            parts = split_commands(call.command)
            return None if parts is None else [[part.text] for part in parts]
        return [self._forms(p) for p in call.paths]

    def _forms(self, path: Path) -> list[str]:
        resolved = path.resolve()
        try:
            return [resolved.relative_to(self.root.resolve()).as_posix(), str(resolved)]
        except ValueError:
            return [str(resolved)]


def suggest_rule(call: CallView, root: Path) -> str:
    """The rule "always allow" would write for a call like this one."""
    if call.kind == "mcp" or not (call.command or call.paths):
        return call.tool
    if call.kind == "execute" and call.tool != "Bash":  # Verify: a Bash rule would not cover it
        return call.tool
    if call.command is not None:
        parts = split_commands(call.command)
        if parts and len(parts) == 1 and len(parts[0].words) >= 2:
            return f"Bash({' '.join(parts[0].words[:2])}:*)"
        return f"Bash({call.command.strip()})"
    path = call.paths[0].resolve()
    try:
        shown = path.relative_to(root.resolve()).as_posix()
    except ValueError:
        shown = str(path)
    family = _FAMILY.get(call.kind, call.tool)
    return f"{family}({shown})"
