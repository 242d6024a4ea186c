"""The ``zengine`` command: the headless frontend."""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

from zengine_jupyter.cli._auth import run_auth
from zengine_jupyter.cli._grammar import build_parser
from zengine_jupyter.cli._settings import run_settings
from zengine_jupyter.cli._trust import run_trust
from zengine_jupyter.protocol import ZengineError

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

__all__ = ["build_parser", "main"]


def _doctor(args: argparse.Namespace) -> int:
    from zengine_jupyter.cli._doctor import collect_report, render_report

    report = asyncio.run(collect_report())
    sys.stdout.write(
        report.model_dump_json(indent=2) if args.json else render_report(report),
    )
    sys.stdout.write("\n")
    return 0


def _sessions(args: argparse.Namespace) -> int:
    from zengine_jupyter.cli._sessions import run_sessions

    return run_sessions(args, lambda text: sys.stdout.write(text + "\n"))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status. A command's module (and
    the engine, for most) is imported only when that command runs (see ``_grammar``)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "doctor":
            return _doctor(args)
        if args.command == "auth":
            return run_auth(args)
        if args.command == "settings":
            return run_settings(args)
        if args.command == "trust":
            return run_trust(args)
        if args.command == "sessions":
            return _sessions(args)
        handler = getattr(args, "handler", None)
        if handler is not None:
            return int(handler(args))
    except ZengineError as exc:
        sys.stderr.write(f"zengine: {exc}\n")
        return 1
    parser.print_help(sys.stdout)
    return 0
