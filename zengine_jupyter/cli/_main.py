"""The ``zengine`` command: the headless frontend."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from zengine_jupyter._version import __version__
from zengine_jupyter.cli._acp import add_acp_parser
from zengine_jupyter.cli._auth import add_auth_parser, run_auth
from zengine_jupyter.cli._cassette import add_cassette_commands
from zengine_jupyter.cli._checkpoints import add_checkpoint_commands
from zengine_jupyter.cli._doctor import collect_report, render_report
from zengine_jupyter.cli._run import add_run_parser
from zengine_jupyter.cli._sessions import add_sessions_parser, run_sessions
from zengine_jupyter.cli._settings import add_settings_parser, run_settings
from zengine_jupyter.cli._trust import add_trust_parser, run_trust
from zengine_jupyter.cli._verify import add_verify_commands
from zengine_jupyter.protocol import ZengineError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zengine",
        description="A coding agent for Jupyter projects (headless frontend).",
    )
    parser.add_argument("--version", action="version", version=f"zengine-jupyter {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    doctor = commands.add_parser(
        "doctor", help="show versions, the data folder and which components are installed"
    )
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")
    add_auth_parser(commands)
    add_settings_parser(commands)
    add_trust_parser(commands)
    add_sessions_parser(commands)
    add_verify_commands(commands)
    add_run_parser(commands)
    add_checkpoint_commands(commands)
    add_cassette_commands(commands)
    add_acp_parser(commands)
    return parser


def _doctor(args: argparse.Namespace) -> int:
    report = asyncio.run(collect_report())
    sys.stdout.write(
        report.model_dump_json(indent=2) if args.json else render_report(report),
    )
    sys.stdout.write("\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
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
            return run_sessions(args, lambda text: sys.stdout.write(text + "\n"))
        handler = getattr(args, "handler", None)
        if handler is not None:
            return int(handler(args))
    except ZengineError as exc:
        sys.stderr.write(f"zengine: {exc}\n")
        return 1
    parser.print_help(sys.stdout)
    return 0
