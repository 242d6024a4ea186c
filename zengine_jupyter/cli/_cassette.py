"""``zengine cassette record NOTEBOOK``: run a notebook live and keep its model answers.

The notebook runs top to bottom in a fresh kernel (nbclient, from its own folder) with
``ZENGINE_RECORD`` set, so every chat it opens talks to the live provider (a key, or
``ZENGINE_BASE_URL``) and appends each answer to a temporary cassette. When the run passed
and recorded at least one answer, the cassette replaces ``cassettes/<notebook>.jsonl`` beside
the notebook (or ``--out``); a failed run leaves the previous cassette as it was.
``zengine cassette show CASSETTE`` lists a cassette's steps.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from zengine_jupyter.llm import read_cassette, resolve_key
from zengine_jupyter.protocol import CassetteError, ErrorEvent, TextDelta, ToolCallEnd

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

__all__ = ["default_cassette", "record"]

_LIVE_HOSTS = ("api.anthropic.com", "api.openai.com")


def default_cassette(notebook: Path) -> Path:
    return notebook.parent / "cassettes" / f"{notebook.stem}.jsonl"


def _live_configured() -> bool:
    if os.environ.get("ZENGINE_BASE_URL", "").strip():
        return True
    if os.environ.get("ZENGINE_PROVIDER", "").strip() == "replay":
        return False
    return any(resolve_key(host) is not None for host in _LIVE_HOSTS)


def record(notebook: Path, out: Path, *, timeout_s: int, note: str = "") -> tuple[bool, str]:
    """Run ``notebook`` live, recording to ``out``; ``(ok, message)``."""
    from zengine_jupyter.verify.notebooks import run_notebook

    if not notebook.is_file():
        return False, f"no notebook at {notebook}"
    if not _live_configured():
        return False, (
            "recording needs a live model: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or "
            "ZENGINE_BASE_URL (an OpenAI-compatible server such as Ollama)"
        )
    out = out.resolve()
    partial = out.with_name(f".{out.name}.recording")
    partial.unlink(missing_ok=True)
    before = os.environ.get("ZENGINE_RECORD")
    os.environ["ZENGINE_RECORD"] = str(partial)
    try:
        passed, detail = run_notebook(notebook.resolve(), timeout_s=timeout_s, kernel=None)
    finally:
        if before is None:
            os.environ.pop("ZENGINE_RECORD", None)
        else:
            os.environ["ZENGINE_RECORD"] = before
    try:
        header, steps = read_cassette(partial)
    except CassetteError:
        header, steps = None, []
    problem = None
    if not passed:
        problem = f"the notebook failed: {detail}"
    elif header is None or not steps:
        problem = "the run made no model request (does the notebook use %%agent?)"
    else:
        errors = [e for s in steps for e in s.events if isinstance(e, ErrorEvent)]
        if errors:
            problem = f"the provider answered with an error: {errors[0].message}"
    if problem is not None or header is None:
        partial.unlink(missing_ok=True)
        return False, f"{problem}; {out} was left as it was"
    lines = partial.read_text(encoding="utf-8").splitlines()
    named = header.model_copy(update={"notebook": notebook.name, "note": note})
    lines[0] = named.model_dump_json()
    partial.write_text("\n".join(lines) + "\n", encoding="utf-8")
    partial.replace(out)
    return True, f"recorded {len(steps)} model answers from {header.host} to {out}"


def _record_command(args: argparse.Namespace) -> int:
    out = args.out or default_cassette(args.notebook)
    ok, message = record(args.notebook, out, timeout_s=args.timeout, note=args.note)
    (sys.stdout if ok else sys.stderr).write(f"zengine: {message}\n")
    return 0 if ok else 1


def _show_command(args: argparse.Namespace) -> int:
    header, steps = read_cassette(args.cassette)
    sys.stdout.write(
        f"{args.cassette}: {len(steps)} steps, recorded {header.recorded_at} from {header.host}"
        f"{f' ({header.model})' if header.model else ''}"
        f"{f' running {header.notebook}' if header.notebook else ''}\n"
    )
    for step in steps:
        calls = [e.name for e in step.events if isinstance(e, ToolCallEnd)]
        text = "".join(e.text for e in step.events if isinstance(e, TextDelta)).strip()
        answer = f"calls {', '.join(calls)}" if calls else repr(text[:60])
        sys.stdout.write(f"  {step.step:>3}  after {step.expect.describe()}: {answer}\n")
    return 0
