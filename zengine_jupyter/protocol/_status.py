"""Models describing the installation: what ``zengine doctor`` reports."""

from __future__ import annotations

from pydantic import ConfigDict

from zengine_jupyter.protocol._data_model import DataModel
from zengine_jupyter.protocol._sandbox import SandboxNotice

__all__ = ["ComponentStatus", "DoctorReport"]


class ComponentStatus(DataModel):
    """One external program a feature relies on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    """The program, as the user would type it (``git``, ``bwrap``, ...)."""
    purpose: str
    available: bool
    path: str | None = None
    version: str | None = None
    install: str
    """The command that installs it on Debian; shown when it is missing."""


class DoctorReport(DataModel):
    """Everything ``zengine doctor`` checks, in one JSON-serialisable object."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    zengine_version: str
    python: str
    packages: dict[str, str | None]
    data_dir: str
    components: list[ComponentStatus]
    sandbox_backend: str | None = None
    """The sandbox that works here (``bubblewrap``, ``seatbelt``), found by running one trivial
    sandboxed command; None when there is none (then ``sandbox_notice`` says why)."""
    sandbox_notice: SandboxNotice | None = None
