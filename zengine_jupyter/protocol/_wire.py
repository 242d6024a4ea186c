"""The panel <-> kernel wire protocol: what travels on the ``zengine`` comm.

Every message is a JSON object with ``v`` (the wire version, :data:`WIRE_VERSION`; it and
the comm target live in ``_wire_version.py``, shared with the cell widgets' messages in
``_widget_wire.py``) and a ``kind`` tag. The JupyterLab panel sends a :data:`PanelRequest`,
each with an ``id`` it chose; the kernel sends :data:`KernelMessage` s. Exactly one
:class:`Reply` answers each request (same ``id``): ``ok`` true, or ``ok`` false with ``error``
(plain text for the user, shown as is) and maybe a ``hint``. A kernel that does not support
a request yet answers ``ok`` false and says so: the panel never pretends.

The conversation::

    panel                                kernel
    comm_open (target "zengine", data {})  ->
                                         <-  hello {version}            (id null: unprompted)
    subscribe {id, session_id?}          ->
                                         <-  snapshot {id, session_id, records, pending, ...}
                                         <-  reply {id, ok}
                                         <-  event {session_id, event}  (live, from then on)
    submit {id, text}                    ->
                                         <-  reply {id, ok, turn_id}
    approval_answer {id, request_id, decision} ->
                                         <-  reply {id, ok}             (other views get events)
    open_documents {id, frontend, notebooks} ->   (live notebooks: ``protocol/_live.py``)
                                         <-  reply {id, ok}
                                         <-  doc_request {id, action, path, ...}
    doc_answer {id, request_id, ok, notebook?} ->
                                         <-  reply {id, ok}

A ``snapshot`` is the chat's log as :data:`~zengine_jupyter.protocol.LogRecord` s, so a panel
that reconnects (kernel restart, notebook switch, a :class:`~zengine_jupyter.protocol.Resync`
event) rebuilds its view from the record, then applies live events. The panel's TypeScript
types (``labextension/src/protocol.ts``) are generated from these models by
``scripts/gen-protocol-ts``; a test fails when they disagree.

A version change (``v``) is a breaking change: the kernel answers any other ``v`` with a
``reply`` ``ok`` false naming both versions.
"""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import ConfigDict, Field, model_validator

from zengine_jupyter.protocol._chats import (
    ChatOptions,
    ChatOptionsRequest,
    DeleteSessionRequest,
    RenameSessionRequest,
)
from zengine_jupyter.protocol._checkpoint import CodeRestore
from zengine_jupyter.protocol._data_model import DataModel
from zengine_jupyter.protocol._events import ApprovalDecision, ApprovalRequest, EngineEvent
from zengine_jupyter.protocol._live import DocAnswer, DocRequest, OpenDocuments
from zengine_jupyter.protocol._mcp import McpServerStatus
from zengine_jupyter.protocol._records import LogRecord
from zengine_jupyter.protocol._sessions import SessionMeta
from zengine_jupyter.protocol._setup import (
    SetupAnswer,
    SetupFindLocal,
    SetupKeyRequest,
    SetupModelsRequest,
    SetupSaveRequest,
    SetupStateRequest,
    SetupTestRequest,
)
from zengine_jupyter.protocol._wire_version import WIRE_VERSION, WireVersion

__all__ = [
    "ApprovalAnswer",
    "CommandRequest",
    "EventMessage",
    "HelloMessage",
    "HelloRequest",
    "InterruptRequest",
    "KernelMessage",
    "ListCommandsRequest",
    "ListSessionsRequest",
    "McpStatusRequest",
    "PanelRequest",
    "Reply",
    "RewindRequest",
    "SlashCommand",
    "Snapshot",
    "SubmitRequest",
    "SubscribeRequest",
    "TrustAnswer",
]


class _Wire(DataModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    v: WireVersion = WIRE_VERSION


class _Request(_Wire):
    id: str
    """Chosen by the panel, unique per comm; the :class:`Reply` carries it back."""


# ---------------------------------------------------------------- panel -> kernel


class HelloRequest(_Request):
    """Ask for the kernel's :class:`HelloMessage` again (the panel also gets one on open)."""

    kind: Literal["hello"] = "hello"
    client_version: str
    """The panel's package version (the same number as the Python package when installed
    together)."""


class SubscribeRequest(_Request):
    """Follow a chat: the kernel answers with a :class:`Snapshot`, then streams its events.

    A comm follows one chat at a time; a new subscribe replaces the previous one."""

    kind: Literal["subscribe"] = "subscribe"
    session_id: str | None = None
    """None: the kernel's current chat (the one ``%%agent`` continues), followed as it changes;
    an id: that chat (resumed from the store if this kernel has not opened it), and only it."""


class SubmitRequest(_Request):
    """Send a user message: starts a turn in the subscribed chat (or the kernel's current)."""

    kind: Literal["submit"] = "submit"
    text: str
    session_id: str | None = None


class InterruptRequest(_Request):
    """Stop the running turn of a chat (no-op with ``ok`` true when none runs)."""

    kind: Literal["interrupt"] = "interrupt"
    session_id: str | None = None


class ApprovalAnswer(_Request):
    """Answer an :class:`~zengine_jupyter.protocol.ApprovalRequest` (from either view)."""

    kind: Literal["approval_answer"] = "approval_answer"
    request_id: str
    """``ApprovalRequest.id``. Answering one that is already answered replies ``ok`` false."""
    decision: ApprovalDecision


class TrustAnswer(_Request):
    """The trust banner's buttons: Trust (``trust`` true) or Not now."""

    kind: Literal["trust_answer"] = "trust_answer"
    folder: str
    """``TrustRequired.folder``, echoed so a stale banner cannot trust another folder."""
    trust: bool


class RewindRequest(_Request):
    """Rewind a chat to just before the user message that started ``turn_id``."""

    kind: Literal["rewind"] = "rewind"
    session_id: str | None = None
    turn_id: str
    scope: Literal["code", "conversation", "both"]


class ListSessionsRequest(_Request):
    """The chats of the kernel's project, newest first; answered in ``Reply.sessions``."""

    kind: Literal["list_sessions"] = "list_sessions"


class McpStatusRequest(_Request):
    """MCP server states; answered in ``Reply.servers``."""

    kind: Literal["mcp_status"] = "mcp_status"


class ListCommandsRequest(_Request):
    """The slash commands the input box completes (built-ins and ``/mcp__<server>__<prompt>``);
    answered in ``Reply.commands``."""

    kind: Literal["list_commands"] = "list_commands"


class CommandRequest(_Request):
    """A slash command typed in the panel: ``/cost``, ``/model opus``, ``/mcp__srv__prompt a b``.

    Answered in ``Reply.text`` (markdown) or with events when it starts a turn."""

    kind: Literal["command"] = "command"
    name: str
    """Without the slash: ``cost``, ``model``, ``mcp__srv__prompt``."""
    args: str = ""
    """The rest of the line, unparsed."""
    session_id: str | None = None


PanelRequest = Annotated[
    HelloRequest
    | SubscribeRequest
    | SubmitRequest
    | InterruptRequest
    | ApprovalAnswer
    | TrustAnswer
    | RewindRequest
    | ListSessionsRequest
    | McpStatusRequest
    | ListCommandsRequest
    | CommandRequest
    | ChatOptionsRequest
    | RenameSessionRequest
    | DeleteSessionRequest
    | SetupStateRequest
    | SetupFindLocal
    | SetupModelsRequest
    | SetupKeyRequest
    | SetupTestRequest
    | SetupSaveRequest
    | OpenDocuments
    | DocAnswer,
    Field(discriminator="kind"),
]
"""Everything the panel may send; tagged by ``kind``, each with an ``id``."""


# ---------------------------------------------------------------- kernel -> panel


class HelloMessage(_Wire):
    """Sent at once when the panel opens the comm, and in answer to :class:`HelloRequest`."""

    kind: Literal["hello"] = "hello"
    version: str
    """The kernel's zengine-jupyter version."""
    id: str | None = None
    """The :class:`HelloRequest` it answers; None when sent on open."""


class EventMessage(_Wire):
    """A live :data:`~zengine_jupyter.protocol.EngineEvent` of the subscribed chat."""

    kind: Literal["event"] = "event"
    event: EngineEvent


class Snapshot(_Wire):
    """A chat as it stands, sent before its :class:`Reply` to a :class:`SubscribeRequest`, and
    unprompted when the view must be rebuilt (after a conversation rewind, for a panel that
    fell behind: the kernel's answer to a ``resync`` event, or when the comm starts following
    another chat: the kernel's current one changed, or the first one opened)."""

    kind: Literal["snapshot"] = "snapshot"
    id: str | None = None
    """The :class:`SubscribeRequest` it answers; None when sent unprompted."""
    session_id: str
    """The chat from now on followed; empty when the kernel has no chat yet."""
    records: list[LogRecord] = []
    """The chat's log, oldest first (records a rewind dropped are left out)."""
    pending: list[ApprovalRequest] = []
    """Approvals waiting for an answer right now."""
    running_turn_id: str | None = None
    """The turn in flight, if any: its live events follow."""


class SlashCommand(DataModel):
    """One completion for the input box."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    """Without the slash: ``cost``, ``mcp__github__review``."""
    description: str
    argument_hint: str | None = None
    """e.g. ``<model>`` or ``[pr] [focus]``."""


class Reply(_Wire):
    """The one answer to a request. ``ok`` false carries ``error``; ``ok`` true never does."""

    kind: Literal["reply"] = "reply"
    id: str
    ok: bool
    error: str | None = None
    """What went wrong, in words for the user (names the file / server, never a secret)."""
    hint: str | None = None
    """What to do next."""
    turn_id: str | None = None
    """submit: the turn it started."""
    sessions: list[SessionMeta] | None = None
    """list_sessions: the chats, newest first."""
    servers: list[McpServerStatus] | None = None
    """mcp_status: one line per server."""
    text: str | None = None
    """command: its output, markdown."""
    commands: list[SlashCommand] | None = None
    """list_commands: what the input box completes."""
    restore: CodeRestore | None = None
    """rewind with code: what was put back; the panel reloads open editors of those files."""
    setup: SetupAnswer | None = None
    """setup_*: the provider setup's answer (``protocol/_setup.py``)."""
    options: ChatOptions | None = None
    """chat_options: the input footer's choices (``protocol/_chats.py``)."""

    @model_validator(mode="after")
    def _error_iff_failed(self) -> Self:
        if self.ok == (self.error is not None):
            raise ValueError("a reply has an error exactly when ok is false")
        return self


KernelMessage = Annotated[
    HelloMessage | EventMessage | Snapshot | Reply | DocRequest,
    Field(discriminator="kind"),
]
"""Everything the kernel may send on the comm; tagged by ``kind``."""
