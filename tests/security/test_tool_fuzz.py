"""Issue 19 acceptance 3: fuzzed tool arguments for every built-in tool, 0 exceptions out of
the turn, and every call answered in the log.

Each example goes the way a model's call goes inside a turn: a ``ToolCallEnd`` stream event
read by ``read_answer``, the assistant message journaled, then ``run_call`` with the chat's
real gate, tools and store (a real ``Session`` on a temporary project). Arguments are junk on
purpose: strings with lone surrogates, NUL, 300-character names, paths through files, ``..``,
a few MB of content, wrong types, extra keys, nested values, arguments that are not JSON.

What keeps it harmless: the approval port allows only calls whose paths stay inside the
temporary folder (anything else is decided, then denied), and Bash runs only a few harmless
commands; every other command line goes through a gate with a ``Bash`` deny rule, so it is
parsed and decided but never run (Verify without check ids too: running every check of the
project, notebooks included, is slow and tested elsewhere).
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zengine_jupyter.config import PermissionRule
from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.engine._calls import CallEnv, run_call
from zengine_jupyter.engine._stream import read_answer
from zengine_jupyter.engine._wellformed import build_request
from zengine_jupyter.llm._endpoint import CallSpec, detect_endpoint
from zengine_jupyter.llm._http import _body
from zengine_jupyter.llm.anthropic._request import build_body
from zengine_jupyter.llm.openai._request import build_body as build_openai_body
from zengine_jupyter.policy import PermissionGate
from zengine_jupyter.protocol import (
    ApprovalDecision,
    ApprovalRequest,
    MessageRecord,
    ModelRequest,
    ToolCallEnd,
    ToolResultRecord,
    TurnEndRecord,
    TurnStartRecord,
    message_from_records,
)
from zengine_jupyter.protocol._records import new_id
from zengine_jupyter.protocol._text import find_surrogate
from zengine_jupyter.store import scan_file
from zengine_jupyter.testing import DEFAULT_MODEL, FakeModelClient

SPECIAL = [
    "", " ", ".", "..", "/", "a\ud800b", "\udcff", "\x00", "a\x00b", "x" * 300, "é/ü", "\n",
    "data.txt/inside.txt", "sub/../../..", "../outside", "*", "**/*", "[", "\\", "~", "$HOME",
    "nb.ipynb", "sub", "data.txt", "-rf", "--", "\u202e", "\ufeff", "\U0001f600",
]  # fmt: skip
HUGE = ["x" * 3_000_000, "a\ud800b" * 100_000, "\x00" * 1_000_000]
BAD_JSON = ["{", "[1, 2]", '"x"', "nul\x00", '{"a": "\\ud800"']
SAFE_COMMANDS = ["true", "echo fuzz", "printf '%s' ok", "cat data.txt", "ls", "sleep 0"]

text = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=40),  # surrogates included
    st.sampled_from(SPECIAL),
)
scalar = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), text)
junk = st.recursive(
    scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)
REAL = ["data.txt", "new.txt", "sub/new.txt", "nb.ipynb", "sub/n.ipynb", "sub", "."]
path = st.one_of(
    st.sampled_from(REAL),
    st.sampled_from(SPECIAL),
    st.lists(st.sampled_from(SPECIAL) | text, min_size=1, max_size=4).map("/".join),
)
content = st.one_of(text, st.sampled_from(HUGE), st.text(max_size=2000))
TYPED: dict[str, Any] = {
    "path": path, "content": content, "old_string": text, "new_string": content,
    "source": content, "pattern": text, "glob": text, "prompt": text, "description": text,
    "query": text, "new_name": text, "shell_id": text, "cell_id": text,
}  # fmt: skip


def _value(key: str, spec: dict[str, Any]) -> st.SearchStrategy[Any]:
    if key in TYPED:
        typed = TYPED[key]
    elif "enum" in spec:
        typed = st.sampled_from(spec["enum"])
    elif spec.get("type") == "integer":
        typed = st.integers(-5, 10**6)
    elif spec.get("type") == "boolean":
        typed = st.booleans()
    elif spec.get("type") == "array":
        typed = st.lists(text, max_size=3)
    else:
        typed = text
    # mostly the right type, one time in ten anything at all
    return st.integers(0, 9).flatmap(lambda n: junk if n == 9 else typed)


Schema = dict[str, Any]


@st.composite
def tool_call(
    draw: st.DrawFn, schemas: dict[str, Schema]
) -> tuple[str, dict[str, Any], str | None]:
    name = draw(st.sampled_from(sorted(schemas)))
    props = schemas[name].get("properties", {})
    dropped = draw(st.integers(0, 4)) == 4  # hypothesis leans to small numbers: 4 is rare
    required = set() if dropped else set(schemas[name].get("required", ()))
    arguments = draw(st.fixed_dictionaries(
        {k: _value(k, props[k]) for k in props if k in required},
        optional={k: _value(k, props[k]) for k in props if k not in required},
    ))  # fmt: skip
    if draw(st.integers(0, 9)) == 9:
        arguments |= draw(st.dictionaries(text, junk, max_size=3))  # extra keys
    if name == "Bash" and not draw(st.booleans()):
        arguments["command"] = draw(st.sampled_from(SAFE_COMMANDS))
        arguments["run_in_background"] = draw(st.booleans() | junk)
    raw = draw(st.sampled_from(BAD_JSON)) if draw(st.integers(0, 19)) == 19 else None
    return name, arguments, raw


class InsideOnly:
    """Allows a call whose paths stay under the test's folder; denies the rest."""

    def __init__(self, root: Path, fence: Path) -> None:
        self.root, self.fence = root, fence

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        for shown in request.paths:
            full = os.path.normpath(self.root / shown)
            if not Path(full).is_relative_to(self.fence):
                return ApprovalDecision(action="deny", message="outside the fuzz folder")
        return ApprovalDecision(action="allow_once")


class Fuzzer:
    def __init__(self, session: Session, env: CallEnv, denying: CallEnv) -> None:
        self.session, self.env, self.denying = session, env, denying
        self.calls = 0
        self.errors = 0
        self.ids: list[str] = []
        self.times: dict[str, float] = {}
        self.kinds: dict[str, int] = {"huge": 0, "surrogate": 0, "nul": 0, "succeeded": 0}

    @classmethod
    async def open(cls, tmp: Path) -> Fuzzer:
        root = tmp / "project"
        (root / "sub").mkdir(parents=True)
        (tmp / "outside").mkdir()
        (root / "data.txt").write_text("a file, not a folder\nfuzz\n")
        (root / "nb.ipynb").write_text(
            '{"cells": [{"cell_type": "code", "id": "c", "metadata": {}, "source": "1",'
            ' "outputs": [], "execution_count": null}], "metadata": {}, "nbformat": 4,'
            ' "nbformat_minor": 5}'
        )
        session = await Session.open(
            SessionOptions(project=root, client=FakeModelClient(), approvals=InsideOnly(root, tmp))
        )
        turn = new_id()
        session.journal.record(TurnStartRecord(turn_id=turn))
        session.journal.record(MessageRecord(role="user", text="fuzz"))
        env = session.call_env(turn)
        deny = (PermissionRule.parse("Bash"), PermissionRule.parse("Verify"))
        policy = replace(session.gate.policy, deny=deny)
        denying = replace(env, gate=PermissionGate(session.root, policy), after_tool=None)
        return cls(session, env, denying)

    async def run(self, name: str, arguments: dict[str, Any], raw: str | None) -> None:
        texts = [v for v in arguments.values() if isinstance(v, str)]
        self.kinds["huge"] += any(len(v) > 1_000_000 for v in texts)
        self.kinds["surrogate"] += find_surrogate(arguments) is not None
        self.kinds["nul"] += any("\x00" in v for v in texts)
        end = ToolCallEnd(index=0, id=f"toolu_{new_id()}", name=name,
                          input={} if raw else arguments, raw_arguments=raw)  # fmt: skip

        async def events() -> Any:
            yield end

        answer = await read_answer(events(), lambda e: None, self.session.id, "t", lambda u: None)
        self.session.journal.record(
            MessageRecord(role="assistant", text="", tool_calls=tuple(answer.calls))
        )
        safe = {
            "Bash": arguments.get("command") in SAFE_COMMANDS,
            "Verify": isinstance(arguments.get("checks"), list) and bool(arguments["checks"]),
        }.get(name, True)
        env = self.env if safe else self.denying
        (call,) = answer.calls
        started = time.monotonic()
        record, _ = await asyncio.wait_for(run_call(env, call, answer.bad_calls.get(call.id)), 60)
        self.times[name] = self.times.get(name, 0.0) + time.monotonic() - started
        self.calls += 1
        self.errors += record.is_error
        self.kinds["succeeded"] += not record.is_error
        if os.environ.get("FUZZ_SHOW"):
            print(name, record.is_error, repr(record.output[:150]))
        self.ids.append(call.id)

    async def close(self) -> Path:
        self.session.journal.record(TurnEndRecord(turn_id=self.env.turn_id, status="completed"))
        log = self.session.writer.log_path
        messages = [
            message_from_records(m.role, texts=m.texts, thinking=m.thinking,
                                 tool_calls=m.tool_calls, tool_results=m.tool_results)
            for m in build_request(self.session.journal.working_set())
        ]  # fmt: skip
        request = ModelRequest(system="s", messages=messages)
        call = CallSpec(DEFAULT_MODEL, None, 1000)
        _body(build_body(request, call)).decode("utf-8")  # the next request can be sent
        openai = detect_endpoint("openai", "http://127.0.0.1:9/v1", "m")
        _body(build_openai_body(request, call, openai)).decode("utf-8")
        await self.session.aclose()
        return log


def test_fuzzed_arguments_for_every_builtin_tool_never_raise(tmp_path: Path) -> None:
    """Attack: junk arguments (surrogates, NUL, long names, paths through files, MBs of text,
    wrong types, extra keys, bad JSON) for every tool: before, several raised out of the turn."""
    loop = asyncio.new_event_loop()
    try:
        fuzz = loop.run_until_complete(Fuzzer.open(tmp_path))
        schemas = {
            name: tool.Input.model_json_schema() for name, tool in fuzz.session.tools.items()
        }
        assert {"Read", "Write", "Edit", "NotebookEdit", "Glob", "Grep", "Bash", "BashOutput",
                "KillShell", "Task", "Verify", "LSP"} <= set(schemas)  # fmt: skip
        seen: set[str] = set()
        started = time.monotonic()

        @settings(max_examples=800, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))  # fmt: skip
        @given(tool_call(schemas))
        def one(example: tuple[str, dict[str, Any], str | None]) -> None:
            name, arguments, raw = example
            seen.add(name)
            loop.run_until_complete(fuzz.run(name, arguments, raw))

        one()
        elapsed = time.monotonic() - started
        log = loop.run_until_complete(fuzz.close())
    finally:
        loop.close()
    assert seen == set(schemas), set(schemas) - seen
    assert all(fuzz.kinds.values()), fuzz.kinds  # each kind of junk was tried
    scan = scan_file(log)
    assert scan.skipped == [], scan.skipped[:3]
    answered = {r.tool_call_id for r in scan.records if isinstance(r, ToolResultRecord)}
    assert set(fuzz.ids) <= answered
    assert log.read_bytes().decode("utf-8")
    print(
        f"fuzz: {fuzz.calls} calls, {fuzz.errors} error results, {elapsed:.1f} s",
        fuzz.kinds,
        {k: round(v, 1) for k, v in fuzz.times.items()},
    )
