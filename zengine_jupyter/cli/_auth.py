"""``zengine auth login HOST`` (the key is read without echo), ``logout HOST`` and ``list``.

Keys go to ``auth.json`` in the data folder (mode 0600, one per host); ``list`` shows hosts,
never keys.
"""

from __future__ import annotations

import getpass
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

__all__ = ["add_auth_parser", "run_auth"]


def add_auth_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    auth = commands.add_parser("auth", help="store API keys per provider host (auth.json)")
    actions = auth.add_subparsers(dest="auth_command", metavar="ACTION", required=True)
    login = actions.add_parser("login", help="store the API key for HOST (typed without echo)")
    login.add_argument("host", metavar="HOST", help="e.g. api.anthropic.com or openrouter.ai")
    logout = actions.add_parser("logout", help="forget the API key for HOST")
    logout.add_argument("host", metavar="HOST", help="the provider host, as `auth list` shows it")
    actions.add_parser("list", help="list the hosts that have a stored key (never the keys)")


def _read_key(host: str) -> str:
    if sys.stdin.isatty():
        return getpass.getpass(f"API key for {host} (not shown): ")
    return sys.stdin.readline()  # piped: `printf %s "$KEY" | zengine auth login HOST`


def run_auth(args: argparse.Namespace) -> int:
    from zengine_jupyter.llm import AuthStore, Secret, host_of

    store = AuthStore()
    if args.auth_command == "list":
        hosts = store.hosts()
        if not hosts:
            sys.stdout.write("no stored keys (add one with: zengine auth login HOST)\n")
        for host in hosts:
            sys.stdout.write(f"{host}\n")
        return 0
    host = host_of(args.host)
    if args.auth_command == "logout":
        removed = store.remove(host)
        sys.stdout.write(f"removed the key for {host}\n" if removed else f"no key for {host}\n")
        return 0
    key = _read_key(host).strip()
    if not key:
        sys.stderr.write("zengine: no key given; nothing stored\n")
        return 1
    store.set(host, Secret(key))
    sys.stdout.write(f"stored the key for {host} in {store.path} (only sent to {host})\n")
    return 0
