"""The ``zengine`` command line: every command's arguments and help.

Nothing here imports the engine: a command's module is imported when that command runs, so
``zengine --version``, ``--help``, ``auth``, ``settings`` and ``trust`` start without loading
it (the engine's import takes most of a second; ``zengine run`` pays it once it runs).
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from zengine_jupyter._version import __version__
from zengine_jupyter.cli._acp import add_acp_parser
from zengine_jupyter.cli._auth import add_auth_parser
from zengine_jupyter.cli._settings import add_settings_parser
from zengine_jupyter.cli._trust import add_trust_parser
from zengine_jupyter.config import PERMISSION_MODES

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["build_parser"]


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


def _lazy(module: str, name: str) -> Callable[[argparse.Namespace], int]:
    """The handler ``name`` of ``zengine_jupyter.cli.<module>``, imported when it is called."""

    def handler(args: argparse.Namespace) -> int:
        found = getattr(importlib.import_module(f"zengine_jupyter.cli.{module}"), name)
        return int(found(args))

    return handler


def add_run_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = commands.add_parser("run", help="run one turn of the agent on a project")
    run.add_argument("prompt", help="what to ask the agent")
    run.add_argument("--project", type=Path, default=Path.cwd(), help="the project folder")
    which = run.add_mutually_exclusive_group()
    which.add_argument("--session", help="go on with this chat")
    which.add_argument("--continue", dest="cont", action="store_true",
                       help="go on with the project's most recent chat")  # fmt: skip
    run.add_argument("--mode", choices=PERMISSION_MODES,
                     help="the permission mode for this chat (default: the settings')")  # fmt: skip
    run.add_argument("--model", help="the model for this chat (model.main)")
    answer = run.add_mutually_exclusive_group()
    answer.add_argument("--yes", action="store_true", help="allow every call that would ask")
    answer.add_argument("--no", action="store_true", help="deny every call that would ask")
    run.set_defaults(handler=_lazy("_run", "run_command"))


def add_checkpoint_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    checkpoints = commands.add_parser("checkpoints", help="list a chat's checkpoints, or clean up")
    actions = checkpoints.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="a chat's messages and the checkpoint of each")
    listing.add_argument("session", metavar="SESSION",
                         help="the chat's id (see `zengine sessions list`)")  # fmt: skip
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    listing.set_defaults(handler=_lazy("_checkpoints", "_list_command"))
    gc = actions.add_parser(
        "gc", help="apply checkpoint retention (checkpoints.max_age_days / max_size_mb)"
    )
    gc.add_argument("--project", type=Path, help="only this project (default: every project)")
    gc.add_argument("--json", action="store_true", help="print the reports as JSON")
    gc.set_defaults(handler=_lazy("_checkpoints", "_gc_command"))

    rewind = commands.add_parser(
        "rewind", help="rewind a chat to one of its messages: files, conversation or both"
    )
    rewind.add_argument("session", metavar="SESSION",
                        help="the chat's id (see `zengine sessions list`)")  # fmt: skip
    rewind.add_argument(
        "--to", required=True, metavar="MESSAGE",
        help="the message's number (see `zengine checkpoints list`) or its turn id",
    )  # fmt: skip
    what = rewind.add_mutually_exclusive_group()
    what.add_argument("--code", action="store_const", dest="what", const="code",
                      help="only the files")  # fmt: skip
    what.add_argument("--conversation", action="store_const", dest="what",
                      const="conversation", help="only the conversation")  # fmt: skip
    what.add_argument("--both", action="store_const", dest="what", const="both",
                      help="files and conversation (the default)")  # fmt: skip
    rewind.add_argument("--json", action="store_true", help="print the result as JSON")
    rewind.set_defaults(handler=_lazy("_checkpoints", "_rewind_command"), what="both")


def add_cassette_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cassette = commands.add_parser("cassette", help="record or inspect a replayable model session")
    actions = cassette.add_subparsers(dest="action", metavar="ACTION", required=True)
    rec = actions.add_parser("record", help="run a notebook live and write its cassette")
    rec.add_argument("notebook", type=Path, help="the notebook to run (.ipynb)")
    rec.add_argument("--out", type=Path, help="default: cassettes/<notebook>.jsonl beside it")
    rec.add_argument("--timeout", type=int, default=600, help="seconds per cell (default 600)")
    rec.add_argument("--note", default="", help="a note kept in the cassette's header")
    rec.set_defaults(handler=_lazy("_cassette", "_record_command"))
    show = actions.add_parser("show", help="list a cassette's steps")
    show.add_argument("cassette", type=Path, help="the cassette file (.jsonl)")
    show.set_defaults(handler=_lazy("_cassette", "_show_command"))


def add_sessions_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sessions = commands.add_parser("sessions", help="list, show and repair chats")
    actions = sessions.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="every chat, most recent first")
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    listing.add_argument("--project", metavar="DIR", type=Path,
                         help="only the chats about the project folder DIR")  # fmt: skip
    show = actions.add_parser("show", help="a chat's replayed transcript (read-only)")
    show.add_argument("id", metavar="ID", help="the chat's id (see `zengine sessions list`)")
    show.add_argument("--json", action="store_true", help="print records as JSON")
    repair = actions.add_parser(
        "repair", help="open a chat for writing: cut a torn tail, close what a crash left open"
    )
    repair.add_argument("id", metavar="ID", help="the chat's id (see `zengine sessions list`)")
    repair.add_argument("--json", action="store_true", help="print the report as JSON")


def add_verify_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``checks`` and ``verify`` on the ``zengine`` parser."""
    checks = commands.add_parser(
        "checks", help="list the checks discovered from the project's build files (runs nothing)"
    )
    checks.add_argument("--project", type=Path, default=None, help="project folder")
    checks.add_argument("--json", action="store_true", help="print the checks as JSON")
    checks.set_defaults(handler=_lazy("_verify", "checks_command"))
    verify = commands.add_parser(
        "verify", help="run checks now and print their records (all discovered ones by default)"
    )
    verify.add_argument("checks", nargs="*", metavar="CHECK", help="check ids (see zengine checks)")
    verify.add_argument("--project", type=Path, default=None, help="project folder")
    verify.add_argument("--json", action="store_true", help="print the records as JSON")
    verify.add_argument("--timeout", type=float, default=900.0, help="seconds per check")
    verify.set_defaults(handler=_lazy("_verify", "run_checks_command"))
