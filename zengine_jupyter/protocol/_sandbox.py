"""What the frontends are told about the sandbox: the notice shown when it is off."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from zengine_jupyter.protocol._data_model import DataModel

__all__ = ["SandboxNotice"]


class SandboxNotice(DataModel):
    """The sandbox was asked for but cannot run here: commands run unconfined and the gate asks.

    Shown loudly (status line, turn view) every time it applies; never silent.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["sandbox_unavailable"] = "sandbox_unavailable"
    backend: str | None
    """The backend tried (``bubblewrap``, ``seatbelt``); None when the platform has none."""
    platform: str
    """``sys.platform`` of the machine (``linux``, ``darwin``, ``win32``)."""
    reason: str
    """Why it is unavailable, e.g. ``bwrap is not installed`` or the sandbox's own error."""
    fix: str
    """What the user can do, e.g. ``install it with: apt-get install bubblewrap``."""
    consequence: str = "commands run unconfined and keep asking for approval"

    def text(self) -> str:
        """One line for a status bar or a log."""
        return f"Sandbox off: {self.reason}. {self.consequence.capitalize()}. Fix: {self.fix}"
