"""The magics: ``%zengine`` (status) and ``%%agent`` (a request to the agent)."""

from __future__ import annotations

from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.display import display

from zengine_jupyter.kernel._status import current_status

__all__ = ["MAGIC_NAMES", "ZengineMagics"]

MAGIC_NAMES: tuple[tuple[str, str], ...] = (("line", "zengine"), ("cell", "agent"))

_MISSING_ENGINE = (
    "zengine: %%agent cannot run a turn in this version: the engine core "
    "(sessions, the turn loop, tools and the permission gate) is not built yet. "
    "Nothing was sent to a model and no file was changed."
)


@magics_class
class ZengineMagics(Magics):
    """Every magic ``%load_ext zengine`` adds."""

    @line_magic
    def zengine(self, line: str) -> None:
        """Show zengine's status: version, project root and data folder."""
        display(current_status().mimebundle(), raw=True)

    @cell_magic
    def agent(self, line: str, cell: str) -> None:
        """Ask the agent to work on this project: the cell is the request."""
        display({"text/plain": _MISSING_ENGINE}, raw=True)
