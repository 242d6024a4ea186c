"""The magics: ``%zengine`` (status), ``%%agent`` (a request) and ``%agent`` (a slash command).

``%%agent`` returns at once: the turn runs as a task on the kernel's loop and the cell's
output is a widget that follows it. Nothing heavy is imported until the first turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from zengine_jupyter.kernel._controller import KernelController, TurnRequest
from zengine_jupyter.kernel._status_widget import StatusBoard
from zengine_jupyter.kernel._vars import VARS_HELP

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

__all__ = ["MAGIC_NAMES", "ZengineMagics"]

MAGIC_NAMES: tuple[tuple[str, str], ...] = (("line", "zengine"), ("line", "agent"),
                                            ("cell", "agent"))  # fmt: skip


@magics_class
class ZengineMagics(Magics):
    """Every magic ``%load_ext zengine`` adds."""

    def __init__(self, shell: InteractiveShell) -> None:
        super().__init__(shell)
        self.controller = KernelController(shell)
        self.status = StatusBoard(self.controller)
        self.side_widgets: list[Any] = []
        """Widgets other than the turns' (rewind): closed by ``%unload_ext``."""

    @line_magic
    def zengine(self, line: str) -> None:
        """Show zengine's status: project, trust (and what is withheld), model, sandbox, MCP.

        ``%zengine setup`` shows the provider setup view: choose a provider and a model."""
        if line.strip() == "setup":
            self.show_setup()
            return
        if line.strip():
            display({"text/plain": f"zengine: unknown argument {line.strip()!r}: `%zengine` "
                     "shows the status, `%zengine setup` the setup view"}, raw=True)  # fmt: skip
            return
        self.status.show(full=True)

    def show_setup(self, notice: str = "") -> None:
        """The provider setup widget (closed by ``%unload_ext``)."""
        from zengine_jupyter.kernel._setup import show_setup

        self.side_widgets.append(show_setup(self.controller, notice))

    def offer_setup(self) -> None:
        """``%load_ext``: when no model is configured at all, say so and show the setup view
        (a cheap check: no pydantic, no network)."""
        from zengine_jupyter.config import provider_configured
        from zengine_jupyter.kernel._setup import NOTHING_CONFIGURED
        from zengine_jupyter.kernel._status import current_status

        try:
            configured = provider_configured(current_status().project_root)
        except Exception:  # a broken environment: the first turn's error says more
            return
        if not configured:
            self.show_setup(NOTHING_CONFIGURED)

    @magic_arguments()
    @argument("--session", metavar="ID", help="continue this chat")
    @argument("--new", action="store_true", help="start a new chat")
    @argument("--project", metavar="DIR", help="work on DIR (default: the notebook's project)")
    @argument("--mode", metavar="M", help="default, accept_edits, plan or bypass")
    @argument("--model", metavar="M", help="the model for this chat from now on")
    @argument("--wait", action="store_true", help="block until the turn ends (no clicks)")
    @argument("--yes", action="store_true", help="allow what would ask, without asking")
    @argument("--vars", action="store_true", help=VARS_HELP)
    @argument("text", nargs="*", help="line form: a slash command such as /cost")
    @line_cell_magic
    def agent(self, line: str, cell: str | None = None) -> None:
        """Ask the agent to work on this project: the cell is the message.

        ``%agent /command args`` runs a slash command (/cost, /model, /mode, /sessions, ...).
        """
        if cell is None and not line.lstrip().startswith("-"):
            text, line = line.strip(), ""
        else:
            text = ""
        args = parse_argstring(self.agent, line)
        text = cell.strip() if cell is not None else (text or " ".join(args.text))
        if not text:
            display({"text/plain": "zengine: nothing to send (write the request in the cell)"},
                    raw=True)  # fmt: skip
            return
        if cell is None and text.split() == ["/rewind"] and self._rewind_widget(args):
            return
        sent_note = None
        if args.vars:
            text, sent_note = self._substitute(text)
        request = TurnRequest(text=text, session_id=args.session, new=args.new, mode=args.mode,
                              model=args.model, wait=args.wait, yes=args.yes,
                              sent_note=sent_note)  # fmt: skip
        try:
            from zengine_jupyter.kernel._project import with_project

            self.controller.start(with_project(request, args.project))
        except Exception as exc:  # never a traceback in the user's cell
            display({"text/plain": f"zengine: the turn could not start: {exc}"}, raw=True)

    def _substitute(self, text: str) -> tuple[str, str]:
        """``--vars``: the text with ``{name}`` replaced, and what was (not) replaced."""
        from zengine_jupyter.kernel._vars import substitute

        done = substitute(text, self.shell.user_ns if self.shell else {})
        if done.unknown:
            display({"text/plain": f"zengine --vars: {done.report()}"}, raw=True)
        return done.text, done.report()

    def _rewind_widget(self, args: Any) -> bool:
        """``%agent /rewind``: the rewind widget; False where nobody can click (``--wait``, or
        nbclient), so the text command answers instead."""
        import asyncio

        if args.wait or not self.controller.interactive():
            return False
        if args.session is None and self.controller.current is None:
            display({"text/plain": "zengine: no chat in this kernel yet to rewind (run an "
                     "%%agent cell first, or pass --session ID)"}, raw=True)  # fmt: skip
            return True
        from zengine_jupyter.kernel._rewind_widget import RewindWidget

        loop = asyncio.get_running_loop()
        widget = RewindWidget(loop, self.controller.chat_session(args.session))
        self.side_widgets.append(widget)
        display(widget)
        return True
