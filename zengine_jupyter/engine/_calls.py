"""One tool call, start to finish: the gate, the user's approval, hooks, the tool, the result.

Every decision is journaled as an approval record; the result is journaled before the
``tool_call_finished`` event goes out.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from zengine_jupyter.config import add_rule_to_layer
from zengine_jupyter.engine._failures import describe_failure, log_failure
from zengine_jupyter.host import run_hooks
from zengine_jupyter.policy import CallView, suggest_rule
from zengine_jupyter.protocol import (
    ApprovalRecord,
    ApprovalRequest,
    ApprovalRequested,
    HookPayload,
    Notice,
    ToolCallApproved,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallStarted,
    ToolError,
    ToolResultRecord,
    ZengineError,
    escape_surrogates,
    new_id,
)

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping
    from pathlib import Path

    from zengine_jupyter.config import HooksSettings
    from zengine_jupyter.engine._journal import Journaling
    from zengine_jupyter.engine._ports import ApprovalPort
    from zengine_jupyter.engine.tools import Tool, ToolContext, ToolOutput
    from zengine_jupyter.policy import GateDecision, PermissionGate
    from zengine_jupyter.protocol import RecordedImage, RecordedToolCall

__all__ = ["CallEnv", "run_call", "summarise"]

if TYPE_CHECKING:
    AfterTool: TypeAlias = Callable[
        [RecordedToolCall, Tool[Any], ToolOutput], Awaitable[ToolOutput]
    ]

_DECIDED_BY: dict[str, Literal["rule", "mode", "policy", "sandbox"]] = {
    "rule": "rule", "mode": "mode", "read_only_bash": "policy",
    "auto_allow": "sandbox",
}  # fmt: skip


@dataclass
class CallEnv:
    """What running a call needs from its session."""

    session_id: str
    turn_id: str
    root: Path
    journal: Journaling
    gate: PermissionGate
    approvals: ApprovalPort
    tools: Mapping[str, Tool[Any]]
    ctx: ToolContext
    hooks: HooksSettings | None = None
    trusted: bool = True
    after_tool: AfterTool | None = None
    """Extensions' post-processing of a finished call (e.g. language-server errors)."""
    after_writes_only: bool = False
    """``after_tool`` adjusts only calls that changed files: the others skip it."""


def summarise(tool: str, arguments: Mapping[str, Any]) -> str:
    """One line for a tool card: the command, the path, the code's first line, or the
    arguments."""
    code = arguments.get("code")
    if isinstance(code, str) and code.strip():
        lines = [line for line in code.strip().splitlines() if line.strip()]
        first = lines[0] if len(lines[0]) <= 160 else lines[0][:157] + "..."
        return first + (f" (+{len(lines) - 1} lines)" if len(lines) > 1 else "")
    for key in ("command", "path", "pattern", "shell_id"):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return value if len(value) <= 200 else value[:197] + "..."
    text = json.dumps(dict(arguments), ensure_ascii=False)
    return f"{tool} {text[:180]}"


async def run_call(
    env: CallEnv, call: RecordedToolCall, bad_arguments: str | None = None
) -> tuple[ToolResultRecord, ToolOutput | None]:
    """Decide, run and record one call. Never raises for the model's mistakes nor for a tool
    that fails: whatever parsing, the tool's paths, the gate or the tool raise becomes this
    call's error result (``_failures``), and the turn goes on. ``bad_arguments``: why the
    arguments cannot be used at all (``Answer.bad_calls``)."""
    tool = env.tools.get(call.name)
    if tool is None:
        known = ", ".join(sorted(env.tools))
        return _finish(env, call, f"there is no tool {call.name!r}; tools: {known}", True), None
    if bad_arguments is not None:
        return _finish(env, call, f"{call.name}: {bad_arguments}", True), None
    try:
        args = tool.parse(dict(call.input))
        view = CallView(
            tool.name,
            "mcp" if tool.name.startswith("mcp__") else tool.kind,
            tuple(tool.paths(args, env.ctx)),
            tool.command(args),
        )
        refusal = await _permit(env, call, view, tool, args)
    except ToolError as exc:
        return _finish(env, call, str(exc), True), None
    except Exception as exc:  # a path the system refuses, a NUL, a bug: the model hears of it
        return _finish(env, call, await _failure(env, call, exc), True), None
    if refusal is not None:
        return _finish(env, call, refusal, True), None
    env.journal.publish(ToolCallStarted(session_id=env.session_id, turn_id=env.turn_id,
                                        call_id=call.id))  # fmt: skip
    try:
        output = await tool.run(args, env.ctx)
    except ToolError as exc:
        return _finish(env, call, str(exc), True), None
    except ZengineError as exc:  # a part below failed in a way the model should hear about
        return _finish(env, call, f"{call.name} failed: {exc}", True), None
    except Exception as exc:  # OSError, ValueError, a bug in the tool
        return _finish(env, call, await _failure(env, call, exc), True), None
    if env.after_tool is not None and (output.changed_paths or not env.after_writes_only):
        try:
            output = await env.after_tool(call, tool, output)
        except Exception as exc:  # an extension's extra (diagnostics) failed: the result stands
            await log_failure(env.session_id, f"{call.name} (after_tool)", exc)
    if env.hooks is not None and env.hooks.post_tool_use:
        await _post_hook(env, env.hooks, call, output.content, output.is_error)
    artifact = str(output.artifact) if output.artifact else None
    images: tuple[RecordedImage, ...] = ()
    if output.images:
        images = tuple([await env.ctx.images.save(env.ctx.artifacts, p) for p in output.images])
    record = _finish(env, call, output.content, output.is_error, artifact, output.diff, images)
    return record, output


async def _failure(env: CallEnv, call: RecordedToolCall, exc: Exception) -> str:
    logged = None
    if not isinstance(exc, OSError | ValueError):
        logged = await log_failure(env.session_id, call.name, exc)
    return describe_failure(call.name, exc, env.root, logged)


async def _diff(env: CallEnv, tool: Tool[Any], args: Any) -> str | None:
    """The diff a call would make (``Tool.preview``), for a prompt or a denial to show."""
    try:
        found = await tool.preview(args, env.ctx)
    except Exception as exc:  # a preview never stops the call: the prompt goes without
        await log_failure(env.session_id, f"{tool.name} (preview)", exc)
        return None
    return escape_surrogates(found) if found else None


async def _permit(
    env: CallEnv, call: RecordedToolCall, view: CallView, tool: Tool[Any], args: Any
) -> str | None:
    """None when the call may run; else the refusal text the model gets."""
    decision = env.gate.decide(view)
    sid, tid = env.session_id, env.turn_id
    if decision.action == "deny":
        by: Literal["rule", "mode"] = "rule" if decision.source == "rule" else "mode"
        env.journal.record(
            ApprovalRecord(tool_call_id=call.id, tool=call.name, decision="deny",
                           decided_by=by, rule=decision.rule, message=decision.reason),
            ToolCallDenied(session_id=sid, turn_id=tid, call_id=call.id, by=by,
                           reason=decision.reason, diff=await _diff(env, tool, args)),
        )  # fmt: skip
        return f"Not run: {decision.reason}."
    if decision.action == "ask":
        refusal = await _ask(env, call, view, decision, await _diff(env, tool, args))
        if refusal is not None:
            return refusal
    else:
        decided = _DECIDED_BY[decision.source]
        shown: Literal["auto_allow", "rule", "mode"] = (
            "auto_allow" if decided == "sandbox" else "rule" if decided == "rule" else "mode"
        )
        env.journal.record(
            ApprovalRecord(tool_call_id=call.id, tool=call.name, decision="allow_once",
                           decided_by=decided, rule=decision.rule),
            ToolCallApproved(session_id=sid, turn_id=tid, call_id=call.id, by=shown,
                             rule=decision.rule),
        )  # fmt: skip
    if env.hooks is not None and env.hooks.pre_tool_use:
        return await _pre_hook(env, env.hooks, call)
    return None


async def _ask(
    env: CallEnv, call: RecordedToolCall, view: CallView, decision: GateDecision, diff: str | None
) -> str | None:
    sid, tid = env.session_id, env.turn_id
    request = ApprovalRequest(
        id=new_id(),
        call_id=call.id,
        tool=call.name,
        summary=summarise(call.name, call.input),
        reason=decision.reason,
        command=view.command,
        paths=[env.ctx.display(p) for p in view.paths],
        diff=diff,
        suggested_rule=suggest_rule(view, env.root),
    )
    env.journal.publish(ApprovalRequested(session_id=sid, turn_id=tid, request=request))
    answer = await env.approvals.ask(request)
    if answer.action in ("deny", "always_deny"):
        denied_rule = None
        if answer.action == "always_deny":
            denied_rule = answer.rule or request.suggested_rule
            await asyncio.to_thread(
                add_rule_to_layer, answer.layer, denied_rule, project=env.root, kind="deny"
            )
            env.gate.policy = env.gate.policy.with_rule(denied_rule, kind="deny")
        env.journal.record(
            ApprovalRecord(tool_call_id=call.id, tool=call.name, decision="deny",
                           decided_by=answer.by, message=answer.message, rule=denied_rule),
            ToolCallDenied(session_id=sid, turn_id=tid, call_id=call.id, by=answer.by,
                           reason=answer.message or "denied", diff=diff),
        )  # fmt: skip
        if answer.by == "no_answer":
            return f"This call was denied because nobody could approve it: {answer.message}."
        note = f" The user said: {answer.message}" if answer.message else ""
        return f"The user denied this call.{note}"
    rule = None
    if answer.action == "always_allow" and decision.source in ("protected", "outside"):
        # no rule can cover it (these ask in every mode): a saved rule would only mislead
        env.journal.publish(Notice(session_id=sid, turn_id=tid, topic="settings", text=(
            f"allowed once, no rule saved: {decision.reason}")))  # fmt: skip
    elif answer.action == "always_allow":
        rule = answer.rule or request.suggested_rule
        await asyncio.to_thread(add_rule_to_layer, answer.layer, rule, project=env.root)
        env.gate.policy = env.gate.policy.with_rule(rule)
        if answer.layer == "local" and not env.trusted:
            env.journal.publish(Notice(session_id=sid, turn_id=tid, topic="settings", text=(
                f"{rule} was saved to this project's settings.local.toml: it applies now, and "
                "in later chats once you trust this folder")))  # fmt: skip
    env.journal.record(
        ApprovalRecord(tool_call_id=call.id, tool=call.name, rule=rule, decided_by="user",
                       decision="allow_always" if rule else "allow_once"),
        ToolCallApproved(session_id=sid, turn_id=tid, call_id=call.id, by="user", rule=rule),
    )  # fmt: skip
    return None


def _payload(env: CallEnv, call: RecordedToolCall, **extra: Any) -> HookPayload:
    return HookPayload(
        event=extra.pop("event"),
        session_id=env.session_id,
        project_dir=str(env.root),
        tool_name=call.name,
        tool_input=dict(call.input),
        **extra,
    )


async def _pre_hook(env: CallEnv, hooks: HooksSettings, call: RecordedToolCall) -> str | None:
    outcome = await run_hooks(hooks, _payload(env, call, event="pre_tool_use"), cwd=env.root)
    if not outcome.blocked:
        return None
    reason = outcome.message or "a pre_tool_use hook blocked it"
    env.journal.publish(ToolCallDenied(session_id=env.session_id, turn_id=env.turn_id,
                                       call_id=call.id, by="hook", reason=reason))  # fmt: skip
    return f"Not run: {reason}"


async def _post_hook(
    env: CallEnv, hooks: HooksSettings, call: RecordedToolCall, output: str, is_error: bool
) -> None:
    payload = _payload(env, call, event="post_tool_use", tool_output=output[-4000:],
                       is_error=is_error)  # fmt: skip
    await run_hooks(hooks, payload, cwd=env.root)


def _finish(
    env: CallEnv,
    call: RecordedToolCall,
    output: str,
    is_error: bool,
    artifact: str | None = None,
    diff: str | None = None,
    images: tuple[RecordedImage, ...] = (),
) -> ToolResultRecord:
    output = escape_surrogates(output)  # a file name that is not UTF-8, say: shown escaped
    diff = escape_surrogates(diff) if diff is not None else None
    record = ToolResultRecord(
        tool_call_id=call.id, name=call.name, output=output, is_error=is_error,
        artifact=artifact, diff=diff, images=images,
    )  # fmt: skip
    env.journal.record(
        record,
        ToolCallFinished(session_id=env.session_id, turn_id=env.turn_id, call_id=call.id,
                         is_error=is_error, output=output, diff=diff, artifact=artifact),
    )  # fmt: skip
    return record
