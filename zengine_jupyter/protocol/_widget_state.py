"""The cell widgets' state: the synced traits each widget view reads (``model.get``).

The kernel sets them as anywidget state (``update`` messages); a view opened later gets all of
them. The messages themselves are in ``_widget_wire.py``. The status widget's first state is
built at ``%load_ext`` without pydantic (the details are None then); every later value is
built through these models.
"""

from __future__ import annotations

from pydantic import ConfigDict

from zengine_jupyter.protocol._data_model import DataModel
from zengine_jupyter.protocol._settings import LayerName, WithheldSetting
from zengine_jupyter.protocol._widget_wire import RewindOutcome, RewindPointView
from zengine_jupyter.protocol._wire_version import WIRE_VERSION, WireVersion

__all__ = [
    "RewindWidgetState",
    "SetupWidgetState",
    "StatusDetails",
    "StatusInfo",
    "StatusSandbox",
    "StatusServer",
    "StatusWidgetState",
    "TurnWidgetState",
]


class _State(DataModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class StatusInfo(_State):
    """The cheap part ``%load_ext`` shows at once."""

    version: str
    project: str
    notebook: str | None = None
    data: str
    """The data folder."""


class StatusSandbox(_State):
    enabled: bool
    """``shell.sandbox.enabled``."""
    backend: str | None = None
    """The backend that works here; None: commands run on the host."""
    reason: str | None = None
    """Why there is none, and how to fix it."""


class StatusServer(_State):
    """One configured MCP server (or one withheld until the project is trusted)."""

    name: str
    origin: LayerName
    withheld: bool
    enabled: bool


class StatusDetails(_State):
    """What loads on ``refresh`` (or at once for ``%zengine``): trust, model, sandbox, MCP."""

    trusted: bool
    trust_problem: str | None = None
    withheld: list[WithheldSetting] = []
    provider: str
    base_url: str | None = None
    model: str | None = None
    replay: str | None = None
    """The cassette replayed instead of calling a model, if any."""
    mcp: list[StatusServer] = []
    issues: list[str] = []
    """Skipped settings, one line each."""
    sandbox: StatusSandbox


class StatusWidgetState(_State):
    """The status widget's traits."""

    v: WireVersion = WIRE_VERSION
    info: StatusInfo
    details: StatusDetails | None = None
    dismissed: bool = False
    """"Not now" hid the trust banner in this kernel."""
    busy: str = ""
    error: str = ""


class RewindWidgetState(_State):
    """The rewind widget's traits."""

    session_id: str = ""
    points: list[RewindPointView] = []
    result: RewindOutcome | None = None
    busy: str = ""
    error: str = ""


class SetupWidgetState(_State):
    """The setup widget's traits (``%zengine setup``, or ``%load_ext`` with nothing set up);
    built without pydantic at ``%load_ext``."""

    v: WireVersion = WIRE_VERSION
    notice: str = ""
    """Why it is shown unasked (nothing is configured yet); empty for ``%zengine setup``."""
    saved: str = ""
    """The last save's words, so a view opened later shows it."""


class TurnWidgetState(_State):
    """The turn view's traits (``%%agent``)."""

    prompt: str = ""
    session_id: str = ""
    status: str = "starting"
    """starting, running, then completed, interrupted or failed."""
    interactive: bool = True
    """False when nobody can click (``--wait``, nbclient): no Interrupt button."""
    sent_note: str = ""
    """Set when ``%%agent --vars`` replaced ``{name}`` s: the view shows ``prompt`` as sent."""
