"""The panel <-> kernel wire protocol: the models, the kernel's answers, the generated TS."""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from zengine_jupyter.kernel import _comm, _requests
from zengine_jupyter.protocol import (
    COMM_TARGET,
    WIRE_VERSION,
    ApprovalAnswer,
    ApprovalDecision,
    EventMessage,
    HelloMessage,
    KernelMessage,
    PanelRequest,
    Reply,
    Snapshot,
    TextStreamed,
    TurnStartRecord,
    ZengineError,
)

REPO = Path(__file__).resolve().parents[2]
PROTOCOL_TS = REPO / "labextension" / "src" / "protocol.ts"
requests: TypeAdapter[Any] = TypeAdapter(PanelRequest)
messages: TypeAdapter[Any] = TypeAdapter(KernelMessage)

# One example of every request the panel may send, as JSON on the comm.
REQUESTS: list[dict[str, Any]] = [
    {"v": 1, "kind": "hello", "id": "p1", "client_version": "0.1.0"},
    {"v": 1, "kind": "subscribe", "id": "p2"},
    {"v": 1, "kind": "subscribe", "id": "p3", "session_id": "abc"},
    {"v": 1, "kind": "submit", "id": "p4", "text": "add a column"},
    {"v": 1, "kind": "interrupt", "id": "p5"},
    {
        "v": 1,
        "kind": "approval_answer",
        "id": "p6",
        "request_id": "r1",
        "decision": {"action": "deny", "message": "use pandas"},
    },
    {"v": 1, "kind": "trust_answer", "id": "p7", "folder": "/p", "trust": False},
    {"v": 1, "kind": "rewind", "id": "p8", "turn_id": "t1", "scope": "both"},
    {"v": 1, "kind": "list_sessions", "id": "p9"},
    {"v": 1, "kind": "mcp_status", "id": "p10"},
    {"v": 1, "kind": "list_commands", "id": "p11"},
    {"v": 1, "kind": "command", "id": "p12", "name": "model", "args": "opus"},
    {"v": 1, "kind": "setup_state", "id": "p13"},
    {"v": 1, "kind": "setup_find_local", "id": "p14"},
    {"v": 1, "kind": "setup_models", "id": "p15", "provider": "local",
     "base_url": "http://localhost:11434/v1"},
    {"v": 1, "kind": "setup_key", "id": "p16", "provider": "anthropic", "key": "sk-ant-x"},
    {"v": 1, "kind": "setup_test", "id": "p17",
     "choice": {"provider": "openai", "model": "gpt-5"}},
    {"v": 1, "kind": "setup_save", "id": "p18",
     "choice": {"provider": "compatible", "base_url": "https://h/v1", "model": "m"}},
    {"v": 1, "kind": "open_documents", "id": "p19", "frontend": "page-1", "server_root": "/r",
     "notebooks": [{"path": "a/nb.ipynb", "dirty": True}]},
    {"v": 1, "kind": "doc_answer", "id": "p20", "request_id": "k1", "ok": True,
     "notebook": {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
     "dirty": False, "timed_out": False},
    {"v": 1, "kind": "chat_options", "id": "p21", "session_id": "s1"},
    {"v": 1, "kind": "rename_session", "id": "p22", "session_id": "s1", "title": "Revenue"},
    {"v": 1, "kind": "delete_session", "id": "p23", "session_id": "s1"},
]  # fmt: skip


def _union_members(union: object) -> list[type[BaseModel]]:
    return list(typing.get_args(typing.get_args(union)[0]))


def test_every_request_kind_has_an_example_that_round_trips() -> None:
    kinds = {model.model_fields["kind"].default for model in _union_members(PanelRequest)}
    assert {r["kind"] for r in REQUESTS} == kinds
    for raw in REQUESTS:
        parsed = requests.validate_python(raw)
        if raw["kind"] == "setup_key":  # a pasted key never dumps: it is masked
            masked = {**raw, "key": "**********"}
            assert parsed.model_dump(mode="json", exclude_unset=True) == masked
            assert parsed.key.get_secret_value() == raw["key"]
            assert raw["key"] not in repr(parsed)
            continue
        assert parsed.model_dump(mode="json", exclude_unset=True) == raw
        assert requests.validate_json(parsed.model_dump_json()) == parsed


def test_requests_are_strict() -> None:
    with pytest.raises(ValidationError):
        requests.validate_python({"v": 1, "kind": "submit", "id": "p1"})  # no text
    with pytest.raises(ValidationError):
        requests.validate_python({"v": 2, "kind": "interrupt", "id": "p1"})
    with pytest.raises(ValidationError):
        requests.validate_python({"v": 1, "kind": "interrupt", "id": "p1", "extra": 1})
    with pytest.raises(ValidationError):
        requests.validate_python({"v": 1, "kind": "dance", "id": "p1"})


def test_approval_answer_carries_the_engine_decision() -> None:
    answer = requests.validate_python(REQUESTS[5])
    assert isinstance(answer, ApprovalAnswer)
    assert answer.decision == ApprovalDecision(action="deny", message="use pandas")


def test_a_reply_has_an_error_exactly_when_it_failed() -> None:
    assert Reply(id="p1", ok=True).error is None
    assert Reply(id="p1", ok=False, error="no").error == "no"
    with pytest.raises(ValidationError, match="exactly when ok is false"):
        Reply(id="p1", ok=False)
    with pytest.raises(ValidationError, match="exactly when ok is false"):
        Reply(id="p1", ok=True, error="but")


def test_kernel_messages_round_trip_through_json() -> None:
    sent = [
        HelloMessage(version="0.1.0"),
        EventMessage(event=TextStreamed(session_id="s", text="hi")),
        Snapshot(id="p2", session_id="s", records=[TurnStartRecord(turn_id="t1")]),
        Reply(id="p4", ok=True, turn_id="t1"),
    ]
    for message in sent:
        again = messages.validate_json(message.model_dump_json())
        assert again == message


def test_the_kernel_parses_every_request_and_refuses_the_rest_by_name() -> None:
    assert (_comm.COMM_TARGET, _comm.WIRE_VERSION) == (COMM_TARGET, WIRE_VERSION)
    for raw in REQUESTS:
        parsed, refused = _requests.parse_request(raw)
        assert refused is None
        assert parsed == requests.validate_python(raw)
    for raw, words in [
        ({"v": 1, "kind": "dance", "id": "p1"}, "unknown request kind 'dance'"),
        ({"v": 1, "id": "p1"}, "unknown request kind None"),
        ({"v": 1, "kind": "submit", "id": "p1"}, "invalid 'submit' request: text: Field required"),
        ({"v": 1, "kind": "rewind", "id": "p1", "turn_id": "t", "scope": "all"},
         "invalid 'rewind' request: scope: "),
        ({"v": 1, "kind": "interrupt", "id": "p1", "extra": 1}, "extra: Extra inputs"),
    ]:  # fmt: skip
        parsed, refused = _requests.parse_request(raw)
        assert parsed is None
        reply = messages.validate_python(refused.model_dump(mode="json"))  # type: ignore[union-attr]
        assert isinstance(reply, Reply)
        assert (reply.id, reply.ok) == ("p1", False)
        assert words in (reply.error or "")


def test_the_kernel_names_both_versions_on_a_mismatch() -> None:
    _, refused = _requests.parse_request({"v": 9, "kind": "submit", "id": "p1"})
    assert refused is not None
    assert not refused.ok
    assert "wire version 9" in (refused.error or "")
    assert "speaks 1" in (refused.error or "")
    assert refused.hint is not None


def test_an_engine_error_becomes_a_failed_reply_with_its_hint() -> None:
    reply = _requests.failure("p1", ZengineError("chat x is closed", hint="open it again"))
    assert (reply.ok, reply.error, reply.hint) == (False, "chat x is closed", "open it again")
    reply = _requests.failure("p2", KeyError("k"))
    assert (reply.ok, reply.error, reply.hint) == (False, "KeyError: 'k'", None)


def test_protocol_ts_declares_every_model_with_its_fields() -> None:
    text = PROTOCOL_TS.read_text()
    for union in (PanelRequest, KernelMessage):
        for model in _union_members(union):
            block = re.search(rf"export interface {model.__name__} \{{\n(.*?)\n\}}", text, re.S)
            assert block, model.__name__
            fields = {line.strip().split(":")[0].rstrip("?") for line in block[1].splitlines()}
            assert fields == set(model.model_fields), model.__name__
    assert f"export const WIRE_VERSION = {WIRE_VERSION};" in text
