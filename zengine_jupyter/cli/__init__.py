"""The headless frontend: the ``zengine`` command."""

from zengine_jupyter.cli._main import build_parser, main

__all__ = ["build_parser", "main"]
