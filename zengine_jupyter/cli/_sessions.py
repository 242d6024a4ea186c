"""``zengine sessions list|show|repair``: the chats in the data folder, from a terminal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zengine_jupyter.engine import repair_on_resume
from zengine_jupyter.protocol import (
    ApprovalRecord,
    CheckLogRecord,
    CompactionRecord,
    MessageRecord,
    ModeChangeRecord,
    ModelChangeRecord,
    PlanRecord,
    QuestionRecord,
    RewindRecord,
    SubagentEndRecord,
    SubagentStartRecord,
    ToolResultRecord,
    TurnEndRecord,
    VerificationRecord,
)
from zengine_jupyter.store import SessionStore

if TYPE_CHECKING:
    import argparse

    from zengine_jupyter.protocol import LogRecord, SessionMeta
    from zengine_jupyter.store import OpenReport, SessionSnapshot, SkippedLine

__all__ = ["render_list", "render_transcript", "run_sessions"]

_PREVIEW = 200


def _cost(meta: SessionMeta) -> str:
    return f"${meta.cost_usd:.4f}" + ("+?" if meta.unpriced_requests else "")


def _project_name(meta: SessionMeta) -> str:
    """The project column: the folder's path, ``~`` for the home folder."""
    if not meta.project:
        return "-"
    home = str(Path.home())
    path = meta.project
    return "~" + path[len(home) :] if path == home or path.startswith(home + "/") else path


def render_list(metas: list[SessionMeta]) -> str:
    if not metas:
        return "no chats yet"
    projects = [_project_name(m) for m in metas]
    width = max(len("PROJECT"), *(len(p) for p in projects))
    lines = [f"{'UPDATED':<16}  {'CHAT':<22}  {'PROJECT':<{width}}  MSGS  COST     TITLE"]
    for m, project in zip(metas, projects, strict=True):
        chat = m.id + (" [v1]" if m.format == "v1" else "")
        lines.append(f"{m.updated:%Y-%m-%d %H:%M}  {chat:<22}  {project:<{width}}  "
                     f"{m.message_count:>4}  {_cost(m):<7}  {m.title}")  # fmt: skip
    return "\n".join(lines)


def _of_project(metas: list[SessionMeta], folder: Path | None) -> list[SessionMeta]:
    if folder is None:
        return metas
    wanted = str(folder.expanduser().resolve())
    return [m for m in metas if m.project == wanted]


def _short(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…"


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in (text.splitlines() or [""]))


def _describe(record: LogRecord) -> str | None:
    if isinstance(record, MessageRecord):
        parts = [_indent(record.text, "> " if record.role == "user" else "  ")]
        if record.role == "assistant" and not record.text.strip():
            parts = []
        parts += [f"  [thinking, {len(t.text)} chars]" for t in record.thinking]
        parts += [
            f"  -> {c.name} {_short(json.dumps(c.input, ensure_ascii=False))}"
            for c in record.tool_calls
        ]
        return "\n".join(parts) or None
    if isinstance(record, ToolResultRecord):
        first = record.output.strip().splitlines()[:1]
        mark = " (error)" if record.is_error else ""
        name = record.name or record.tool_call_id
        return f"  <- {name}{mark}: {_short(first[0] if first else '')}"
    if isinstance(record, TurnEndRecord):
        if record.status == "completed":
            return None
        return f"-- turn {record.status}" + (f": {record.reason}" if record.reason else "")
    if isinstance(record, ApprovalRecord):
        return f"  [{record.tool}: {record.decision} by {record.decided_by}]"
    if isinstance(record, CheckLogRecord):
        status = "passed" if record.check.passed else "failed"
        return f"  [check {record.check.check_id}: {status}]"
    if isinstance(record, VerificationRecord):
        return f"  [badge {record.badge}: {_short(record.reason)}]"
    if isinstance(record, CompactionRecord):
        return "-- earlier messages were summarised"
    if isinstance(record, RewindRecord):
        return f"-- rewound to before turn {record.to_turn_id}"
    if isinstance(record, ModeChangeRecord | ModelChangeRecord):
        what = record.mode if isinstance(record, ModeChangeRecord) else record.model
        return f"-- {record.kind.replace('_', ' ')}: {what}"
    if isinstance(record, SubagentStartRecord | SubagentEndRecord):
        state = "started" if isinstance(record, SubagentStartRecord) else record.status
        return f"  [subagent {record.agent_id} {state}]"
    if isinstance(record, QuestionRecord | PlanRecord):
        return f"  [{record.kind} {record.state}] {_short(record.text)}".rstrip()
    return None


def _skipped_summary(skipped: tuple[SkippedLine, ...]) -> str:
    counts: dict[str, int] = {}
    for s in skipped:
        counts[s.reason] = counts.get(s.reason, 0) + 1
    return ", ".join(f"{n} {reason}" for reason, n in sorted(counts.items()))


def render_transcript(snap: SessionSnapshot) -> str:
    meta = snap.meta
    tag = " [v1]" if meta.format == "v1" else ""
    lines = [
        f"{meta.title}{tag}",
        f"chat {meta.id} · {meta.message_count} messages · {_cost(meta)}"
        + (f" · {meta.model}" if meta.model else "")
        + (f" · {meta.project}" if meta.project else ""),
        "",
    ]
    lines += [d for d in map(_describe, snap.state.transcript) if d is not None]
    if snap.skipped or snap.partial_tail_bytes:
        lines.append("")
        if snap.skipped:
            lines.append(f"skipped lines: {_skipped_summary(snap.skipped)}")
        if snap.partial_tail_bytes:
            lines.append(f"a partial last line ({snap.partial_tail_bytes} bytes) was ignored")
        lines.append(f"see `zengine sessions repair {meta.id}`")
    return "\n".join(lines)


def _repair_lines(report: OpenReport, repairs: list[LogRecord]) -> list[str]:
    lines: list[str] = []
    if report.imported_v1:
        lines.append("imported the v1 file into a chat folder (the file is unchanged)")
        lines += [f"  v1 line {s.line}: {s.detail}" for s in report.v1_skipped]
    if report.tail.cut_bytes:
        lines.append(
            f"cut a half-written last line ({report.tail.cut_bytes} bytes,"
            f" kept in {report.tail.artifact})"
        )
    if report.tail.completed:
        lines.append("added the missing newline after a complete last record")
    lines += [f"line {s.line}: skipped ({s.reason}): {s.detail}" for s in report.skipped]
    if report.meta:
        lines.append(f"rewrote meta.json ({report.meta})")
    lines += [f"appended {r.kind}: {(_describe(r) or '').strip()}" for r in repairs]
    return lines


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def run_sessions(args: argparse.Namespace, write: Any) -> int:
    """Run one ``sessions`` action; ``write`` prints a string."""
    store = SessionStore()
    if args.action == "list":
        metas = _of_project(store.list(), args.project)
        write(
            json.dumps([m.model_dump(mode="json") for m in metas], indent=2)
            if args.json
            else render_list(metas)
        )
        return 0
    if args.action == "show":
        snap = store.read(args.id)
        if args.json:
            records = [r.model_dump(mode="json") for r in snap.state.transcript]
            skipped = [_jsonable(vars(s)) for s in snap.skipped]
            out = {"meta": snap.meta.model_dump(mode="json"), "transcript": records}
            write(json.dumps({**out, "skipped": skipped}, indent=2, ensure_ascii=False))
        else:
            write(render_transcript(snap))
        return 0
    with store.open(args.id) as writer:
        repairs = repair_on_resume(writer)
        report = writer.report
    if args.json:
        payload = {
            "id": writer.id,
            "cut_bytes": report.tail.cut_bytes,
            "cut_artifact": report.tail.artifact,
            "completed_tail": report.tail.completed,
            "skipped": [_jsonable(vars(s)) for s in report.skipped],
            "meta_rewritten": report.meta,
            "imported_v1": report.imported_v1,
            "repairs": [r.model_dump(mode="json") for r in repairs],
        }
        write(json.dumps(payload, indent=2, ensure_ascii=False))
        return 0
    lines = _repair_lines(report, repairs)
    write("\n".join(lines) if lines else f"chat {writer.id} is healthy: nothing to repair")
    return 0
