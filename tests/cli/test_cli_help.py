"""Every ``zengine`` command, sub-command, option and argument says what it is for (issue 22:
"every CLI option has help text"): a walk over the whole argparse tree."""

from __future__ import annotations

import argparse

from zengine_jupyter.cli import build_parser


def _walk(parser: argparse.ArgumentParser, path: str) -> list[str]:
    """The ``path action`` of every action in ``parser`` and below it that has no help."""
    missing: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helped = {choice.dest for choice in action._choices_actions if choice.help}
            for name, sub in action.choices.items():
                if name not in helped:
                    missing.append(f"{path} {name} (the command itself)")
                missing += _walk(sub, f"{path} {name}")
        elif not action.help or action.help == argparse.SUPPRESS:
            names = "/".join(action.option_strings) or action.dest
            missing.append(f"{path} {names}")
    return missing


def test_every_command_option_and_argument_has_help() -> None:
    parser = build_parser()
    assert _walk(parser, "zengine") == []


def test_the_walk_finds_an_option_without_help() -> None:
    """The check itself bites: an option added without help is reported by its path."""
    parser = build_parser()
    parser.add_argument("--undocumented")
    assert _walk(parser, "zengine") == ["zengine --undocumented"]
