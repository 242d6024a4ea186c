"""The panel's footer and chats list over the comm, against a real kernel: the options, a model
and a mode chosen through the slash-command path (the log records both, the next request
carries the model), rename, and deleting the followed chat (a new one opens)."""

from __future__ import annotations

from pathlib import Path

import pytest

from zengine_jupyter.protocol import (
    ChatOptionsRequest,
    CommandRequest,
    DeleteSessionRequest,
    ListSessionsRequest,
    ModeChangeRecord,
    ModelChangeRecord,
    RenameSessionRequest,
    Snapshot,
    SubmitRequest,
)
from zengine_jupyter.store import SessionStore, scan_file
from zengine_jupyter.testing import DEFAULT_MODEL, ProviderServer
from zengine_jupyter.testing import Reply as Scripted
from zengine_jupyter.testing.kernel import KernelHarness
from zengine_jupyter.testing.panel import PanelClient, events

pytestmark = pytest.mark.e2e


def test_footer_options_rename_and_delete_over_the_comm(
    kernel: KernelHarness, project: Path, server: ProviderServer, zengine_home: Path
) -> None:
    panel = PanelClient(kernel)
    panel.open()
    before = panel.request(ChatOptionsRequest(id="o1"))
    assert before.ok, before
    assert before.options is not None
    assert (before.options.session_id, before.options.model) == (None, DEFAULT_MODEL)
    other = next(m for m in before.options.models if m != DEFAULT_MODEL)

    server.add(Scripted(text=("first",)), Scripted(text=("second",)))
    assert panel.request(SubmitRequest(id="t1", text="hello")).ok
    sid = events(panel.until_event("turn_ended"))[0].session_id
    for name, value in (("model", other), ("mode", "plan")):
        chosen = panel.request(CommandRequest(id=f"c-{name}", name=name, args=value))
        assert chosen.ok, chosen
        assert chosen.text == f"{name}: {value}"
    now = panel.request(ChatOptionsRequest(id="o2")).options
    assert now is not None
    assert (now.session_id, now.model, now.mode) == (sid, other, "plan")
    assert panel.request(SubmitRequest(id="t2", text="again")).ok
    panel.until_event("turn_ended")
    assert server.requests[-1].json["model"] == other
    records = scan_file(SessionStore(zengine_home / "sessions").folder(sid) / "log.jsonl").records
    assert [r.model for r in records if isinstance(r, ModelChangeRecord)] == [other]
    assert [r.mode for r in records if isinstance(r, ModeChangeRecord)] == ["plan"]

    renamed = panel.request(RenameSessionRequest(id="r1", session_id=sid, title="My chat"))
    assert renamed.ok, renamed
    assert renamed.text == "title: My chat"
    listed = panel.request(ListSessionsRequest(id="l1")).sessions or []
    assert [(m.id, m.title) for m in listed] == [(sid, "My chat")]
    empty = panel.request(RenameSessionRequest(id="r2", session_id=sid, title=" "))
    assert not empty.ok
    assert "cannot be empty" in (empty.error or "")

    # deleting the followed chat: its log goes to the trash, a new chat opens and is followed
    found = panel.exchange(DeleteSessionRequest(id="d1", session_id=sid))
    reply = found[-1]
    assert reply.ok, reply
    assert "checkpoints stay" in (reply.text or "")
    snapshots = [m for m in found if isinstance(m, Snapshot)]
    assert snapshots
    assert snapshots[-1].session_id not in ("", sid)
    listed = panel.request(ListSessionsRequest(id="l2")).sessions or []
    assert sid not in [m.id for m in listed]
    gone = panel.request(DeleteSessionRequest(id="d2", session_id=sid))
    assert not gone.ok, gone
    assert gone.hint
