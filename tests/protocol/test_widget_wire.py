"""The cell widgets' messages (protocol/_widget_wire.py) and state (_widget_state.py): every
model round-trips through JSON, requests are strict, the kernel's parser answers a bad request
with a typed reply, the TypeScript is generated from the same models, and the wire version is
written in one place only."""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from zengine_jupyter.kernel._view_messages import (
    WidgetName,
    events_message,
    parse_request,
    reply_message,
)
from zengine_jupyter.protocol import (
    WIRE_VERSION,
    ApprovalDecision,
    CostUpdated,
    EngineError,
    Notice,
    RewindWidgetRequest,
    RewindWidgetState,
    SetupWidgetRequest,
    StatusDetails,
    StatusWidgetRequest,
    StatusWidgetState,
    TextStreamed,
    ToolCallProposed,
    TurnApprovalAnswer,
    TurnResult,
    TurnStarted,
    TurnWidgetRequest,
    TurnWidgetState,
    WidgetEvents,
    WidgetMessage,
    WidgetReply,
    WidgetRequest,
)

REPO = Path(__file__).resolve().parents[2]
PROTOCOL_TS = REPO / "labextension" / "src" / "protocol.ts"
requests: TypeAdapter[Any] = TypeAdapter(WidgetRequest)
messages: TypeAdapter[Any] = TypeAdapter(WidgetMessage)

# One example of every request a widget view sends, as the ESM sends it.
REQUESTS: list[dict[str, Any]] = [
    {"v": 1, "kind": "replay", "id": "w1"},
    {"v": 1, "kind": "interrupt", "id": "w2"},
    {
        "v": 1,
        "kind": "approval_answer",
        "id": "w3",
        "request_id": "r1",
        "decision": {"action": "always_allow", "rule": "Bash(ls)"},
    },
    {"v": 1, "kind": "refresh", "id": "s1"},
    {"v": 1, "kind": "trust_answer", "id": "s2", "trust": True},
    {"v": 1, "kind": "rewind", "id": "r2", "to": "t1", "what": "code"},
    {"v": 1, "kind": "setup_state", "id": "s1"},
    {"v": 1, "kind": "setup_find_local", "id": "s2"},
    {"v": 1, "kind": "setup_models", "id": "s3", "provider": "anthropic"},
    {"v": 1, "kind": "setup_test", "id": "s5",
     "choice": {"provider": "local", "base_url": "http://localhost:1234/v1", "model": "q"}},
    {"v": 1, "kind": "setup_save", "id": "s6", "choice": {"provider": "openai", "model": "gpt-5"}},
]  # fmt: skip
KEY_REQUEST = {"v": 1, "kind": "setup_key", "id": "s4", "provider": "openai", "key": "sk-1"}
"""A pasted key: parsed, but never dumped (masked), so it has no plain round trip."""

_POINT = {
    "number": 1,
    "turn_id": "t1",
    "message_id": "m1",
    "prompt": "Set RATE to 2",
    "created": "2026-01-02T03:04:05Z",
    "checkpoint_id": "abc",
    "warnings": ["a.py"],
}
_OUTCOME = {
    "to_turn_id": "t1",
    "prompt": "Set RATE to 2",
    "conversation": False,
    "code": {
        "target": "abc",
        "safety_checkpoint": "def",
        "restored": ["pipeline.py"],
        "removed": [],
        "left_alone": [{"path": "big.bin", "reason": "too_large"}],
    },
    "what": "code",
    "text": "restored pipeline.py",
    "warnings": [],
}
_DETAILS = {
    "trusted": False,
    "trust_problem": None,
    "withheld": [{"key": "permissions.allow", "layer": "project"}],
    "provider": "anthropic",
    "base_url": None,
    "model": "m",
    "replay": None,
    "mcp": [{"name": "gh", "origin": "project", "withheld": True, "enabled": True}],
    "issues": [],
    "sandbox": {"enabled": True, "backend": "bwrap", "reason": None},
}


def _members(union: Any) -> list[type[BaseModel]]:
    return list(typing.get_args(typing.get_args(union)[0]))


def test_every_request_kind_has_an_example_that_round_trips() -> None:
    assert {r["kind"] for r in [*REQUESTS, KEY_REQUEST]} == {
        m.model_fields["kind"].default for m in _members(WidgetRequest)
    }
    key = requests.validate_python(KEY_REQUEST)
    assert key.model_dump(mode="json")["key"] == "**********"
    assert key.key.get_secret_value() == "sk-1"
    for raw in REQUESTS:
        parsed = requests.validate_python(raw)
        assert parsed.model_dump(mode="json", exclude_unset=True) == raw
        assert requests.validate_json(parsed.model_dump_json()) == parsed


def test_each_widget_takes_only_its_own_requests() -> None:
    taken = {
        name: {m.model_fields["kind"].default for m in _members(union)}
        for name, union in (
            ("turn", TurnWidgetRequest),
            ("status", StatusWidgetRequest),
            ("rewind", RewindWidgetRequest),
            ("setup", SetupWidgetRequest),
        )
    }
    assert taken == {
        "turn": {"replay", "interrupt", "approval_answer"},
        "status": {"refresh", "trust_answer"},
        "rewind": {"refresh", "rewind"},
        "setup": {"setup_state", "setup_find_local", "setup_models", "setup_key", "setup_test",
                  "setup_save"},
    }  # fmt: skip
    answer = requests.validate_python(REQUESTS[2])
    assert isinstance(answer, TurnApprovalAnswer)
    assert answer.decision == ApprovalDecision(action="always_allow", rule="Bash(ls)")


def test_requests_are_strict() -> None:
    for bad in [
        {"v": 1, "kind": "approval_answer", "id": "a", "request_id": "r"},  # no decision
        {"v": 2, "kind": "refresh", "id": "a"},
        {"v": 1, "kind": "refresh", "id": "a", "extra": 1},
        {"v": 1, "kind": "rewind", "id": "a", "to": "t", "what": "all"},
        {"v": 1, "kind": "trust_answer", "id": "a"},
        {"v": 1, "kind": "dance", "id": "a"},
    ]:
        with pytest.raises(ValidationError):
            requests.validate_python(bad)


def test_kernel_messages_round_trip_through_json() -> None:
    sent: list[BaseModel] = [
        WidgetEvents(
            events=[
                TextStreamed(session_id="s", text="hi"),
                EngineError(session_id="s", message="no key", hint="set it"),
                TurnResult(status="completed", text="done", changed=["a.py"], cost="$0.01"),
            ]
        ),
        WidgetEvents(events=[], replay=True),
        WidgetReply(id="w1", ok=True),
        WidgetReply(id=None, ok=False, error="bad", hint="reload"),
        WidgetReply.model_validate(
            {"id": "r2", "ok": True, "points": [_POINT], "result": _OUTCOME}
        ),
    ]
    for message in sent:
        again = messages.validate_json(message.model_dump_json())
        assert again == message
        assert messages.validate_python(message.model_dump(mode="json")) == message


def test_a_reply_has_an_error_exactly_when_it_failed_and_leaves_out_nones() -> None:
    with pytest.raises(ValidationError, match="exactly when ok is false"):
        WidgetReply(id="a", ok=False)
    with pytest.raises(ValidationError, match="exactly when ok is false"):
        WidgetReply(id="a", ok=True, error="but")
    # the JSON shapes the widgets' ESM has always read: absent fields, not nulls
    assert reply_message("a") == {"v": 1, "kind": "reply", "id": "a", "ok": True}
    assert reply_message(None, error="no", hint=None) == {
        "v": 1,
        "kind": "reply",
        "id": None,
        "ok": False,
        "error": "no",
    }
    # nested nulls stay (a view reads result.code === null)
    outcome = {**_OUTCOME, "code": None, "conversation": True}
    full = reply_message("b", result=outcome)
    assert full["result"]["code"] is None


def test_events_are_built_through_the_model() -> None:
    built = events_message([TurnResult(status="failed", reason="boom")], replay=True)
    assert built == {
        "v": 1,
        "kind": "events",
        "replay": True,
        "events": [
            {
                "kind": "turn_result",
                "status": "failed",
                "reason": "boom",
                "text": "",
                "changed": [],
                "cost": "",
            }
        ],
    }
    with pytest.raises(TypeError):
        events_message([{"kind": "nonsense"}])  # type: ignore[list-item]


def test_an_events_batch_is_what_the_model_dumps() -> None:
    """events_message builds the envelope by hand (the model's union of every event type
    costs a first turn ~0.1 s): the JSON must stay exactly the model's."""
    events: list[Any] = [
        TurnStarted(session_id="s", turn_id="t", prompt="hi"),
        TextStreamed(session_id="s", turn_id="t", text="hello"),
        ToolCallProposed(
            session_id="s",
            turn_id="t",
            call_id="c",
            tool="Read",
            arguments={"path": "a.py"},
            summary="a.py",
        ),
        CostUpdated(session_id="s", turn_id="t", turn_usd=None, session_usd=0.5),
        Notice(session_id="s", topic="catalog", text="n"),
        EngineError(session_id="s", message="boom", hint=None),
        TurnResult(status="completed", text="done", changed=["a.py"], cost="$0.01"),
    ]
    for replay in (False, True):
        model = WidgetEvents(events=events, replay=replay).model_dump(mode="json")
        assert events_message(events, replay=replay) == model


def test_widget_states_round_trip() -> None:
    states: list[BaseModel] = [
        StatusWidgetState.model_validate(
            {
                "info": {"version": "1", "project": "/p", "notebook": None, "data": "/d"},
                "details": _DETAILS,
            }
        ),
        RewindWidgetState.model_validate({"points": [_POINT], "result": _OUTCOME}),
        TurnWidgetState(prompt="hi", status="running", sent_note="1 variable"),
    ]
    for state in states:
        assert type(state).model_validate_json(state.model_dump_json()) == state
    assert StatusDetails.model_validate(_DETAILS).model_dump(mode="json")["sandbox"]["backend"]


@pytest.mark.parametrize(
    ("widget", "raw", "words"),
    [
        ("turn", {"v": 9, "kind": "replay", "id": "a"}, "widget message version 9 is not 1"),
        (
            "turn",
            {"v": 1, "kind": "refresh", "id": "a"},
            "unknown request kind 'refresh': this widget answers approval_answer, interrupt",
        ),
        (
            "turn",
            {"v": 1, "kind": "approval_answer", "id": "a", "request_id": "r"},
            "invalid 'approval_answer' request: decision: Field required",
        ),
        (
            "turn",
            {
                "v": 1,
                "kind": "approval_answer",
                "id": "a",
                "request_id": "r",
                "decision": {"action": "shrug"},
            },
            "invalid 'approval_answer' request: decision",
        ),
        (
            "status",
            {"v": 1, "kind": "trust_answer", "id": "a", "trust": "maybe"},
            "invalid 'trust_answer' request: trust: ",
        ),
        ("status", {"v": 1, "kind": "replay", "id": "a"}, "unknown request kind 'replay'"),
        (
            "rewind",
            {"v": 1, "kind": "rewind", "id": "a", "to": "t", "what": "all"},
            "invalid 'rewind' request: what: ",
        ),
        ("rewind", {"v": 1, "kind": "refresh", "id": "a", "x": 1}, "x: Extra inputs"),
    ],
)
def test_the_kernel_refuses_a_bad_request_with_a_typed_reply(
    widget: Any, raw: dict[str, Any], words: str
) -> None:
    parsed, refused = parse_request(widget, raw)
    assert parsed is None
    assert refused is not None
    reply = messages.validate_python(refused)
    assert isinstance(reply, WidgetReply)
    assert (reply.id, reply.ok) == ("a", False)
    assert words in (reply.error or "")


def test_a_request_without_an_id_or_a_dict_is_refused_with_a_null_id() -> None:
    for raw in [{"v": 1, "kind": "refresh"}, {"v": 1, "kind": "refresh", "id": 7}, ["x"], None]:
        parsed, refused = parse_request("status", raw)
        assert parsed is None
        reply = messages.validate_python(refused)
        assert (reply.id, reply.ok) == (None, False)


def test_the_kernel_parses_every_request_its_widget_takes() -> None:
    widgets: list[tuple[WidgetName, Any]] = [
        ("turn", TurnWidgetRequest),
        ("status", StatusWidgetRequest),
        ("rewind", RewindWidgetRequest),
    ]
    for widget, union in widgets:
        kinds = {m.model_fields["kind"].default for m in _members(union)}
        for raw in (r for r in REQUESTS if r["kind"] in kinds):
            parsed, refused = parse_request(widget, raw)
            assert refused is None
            assert parsed == requests.validate_python(raw)


def test_protocol_ts_declares_every_widget_model_with_its_fields() -> None:
    text = PROTOCOL_TS.read_text()
    models: list[type[BaseModel]] = [
        *_members(WidgetRequest),
        *_members(WidgetMessage),
        TurnResult,
        StatusWidgetState,
        RewindWidgetState,
        TurnWidgetState,
        StatusDetails,
    ]
    for model in models:
        block = re.search(rf"export interface {model.__name__} \{{\n(.*?)\n\}}", text, re.S)
        assert block, model.__name__
        fields = {line.strip().split(":")[0].rstrip("?") for line in block[1].splitlines()}
        assert fields == set(model.model_fields), model.__name__
    assert "export type WidgetRequest =" in text
    assert "export type WidgetMessage =" in text
    assert "events: (EngineEvent | TurnResult)[];" in text


def test_the_wire_version_is_written_in_one_place() -> None:
    """WIRE_VERSION is defined in protocol/_wire_version.py only: no Python module assigns
    another version constant, the kernel holds no hand-written widget JS (the widgets are
    bundled from labextension/src/widgets, which import the generated protocol.ts), and no
    TypeScript but the generated file spells ``v: 1``."""
    package = REPO / "zengine_jupyter"
    definitions = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if re.search(r"^\s*\w*WIRE_VERSION\w*\s*(:[^=]*)?=", path.read_text(), re.M)
    ]
    assert definitions == ["protocol/_wire_version.py"]
    assert not list((package / "kernel").glob("*.js")), "widget JS belongs in labextension/src"
    for path in (REPO / "labextension" / "src").rglob("*.ts"):
        if path.name != "protocol.ts":
            assert not re.search(r"\bv:\s*\d", path.read_text()), path.name
    for path in (REPO / "labextension" / "src" / "widgets").glob("*.ts"):
        text = path.read_text()
        assert "WIRE_VERSION" not in text or "from '../protocol'" in text, path.name
    assert f"export const WIRE_VERSION = {WIRE_VERSION};" in PROTOCOL_TS.read_text()


def test_the_state_models_are_the_widgets_synced_traits() -> None:
    import anywidget

    from zengine_jupyter.kernel._rewind_widget import RewindWidget
    from zengine_jupyter.kernel._widget import TRAITS

    base = set(anywidget.AnyWidget.class_trait_names(sync=True))
    synced = set(RewindWidget.class_trait_names(sync=True)) - base
    assert synced == set(RewindWidgetState.model_fields)
    # the turn widget is a raw comm (no ipywidgets): its state is TRAITS, the model's defaults
    assert TurnWidgetState().model_dump() == TRAITS
