"""``zengine trust``: trust a project folder, revoke it, or list the trusted ones."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zengine_jupyter.config import find_project_root

if TYPE_CHECKING:
    import argparse

__all__ = ["add_trust_parser", "run_trust"]


def add_trust_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "trust",
        help="trust a project folder (its hooks, servers, checks and rules then apply)",
        description="Trust is per folder exactly: subfolders and worktrees need their own entry.",
    )
    parser.add_argument(
        "dir", nargs="?", type=Path, default=None, help="folder (default: the current project)"
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--revoke", metavar="DIR", type=Path, help="stop trusting DIR")
    group.add_argument("--list", action="store_true", help="list the trusted folders")


def run_trust(args: argparse.Namespace) -> int:
    from zengine_jupyter.config import TrustStore

    store = TrustStore()
    if args.list:
        for entry in store.entries():
            sys.stdout.write(f"{entry.path}\t(since {entry.trusted_at:%Y-%m-%d %H:%M} UTC)\n")
        return 0
    if args.revoke is not None:
        if store.revoke(args.revoke):
            sys.stdout.write(f"no longer trusted: {args.revoke.expanduser().resolve()}\n")
            return 0
        sys.stderr.write(f"zengine: {args.revoke.expanduser().resolve()} was not trusted\n")
        return 1
    folder = args.dir if args.dir is not None else find_project_root(Path.cwd())
    entry = store.trust(folder)
    sys.stdout.write(f"trusted: {entry.path}\n")
    return 0
