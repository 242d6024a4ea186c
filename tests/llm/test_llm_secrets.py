"""Acceptance 4: no key or auth header in any log record, file, event, exception or repr.

A full streamed turn (thinking, text, a tool call, usage) and the failures around it (a
rejected key, a retried overload, a lost connection) run with DEBUG logging and are recorded
in a real chat folder (log records, an artifact, meta.json); then everything written under
ZENGINE_HOME (but auth.json, the key store itself, checked to be 0600), every
log record, every event (repr and JSON), every exception (message, repr, traceback with its
chain) and the reprs of the objects involved are searched for the key and its header.
"""

from __future__ import annotations

import json
import logging
import stat
import traceback
from typing import TYPE_CHECKING, Any

from zengine_jupyter.llm import (
    AuthStore,
    CatalogCache,
    ClientDeps,
    CostMeter,
    ProviderOptions,
    Secret,
    build_client,
    resolve_key,
)
from zengine_jupyter.llm._endpoint import CallSpec, detect_endpoint
from zengine_jupyter.llm._options import Timeouts
from zengine_jupyter.llm.anthropic import AnthropicAdapter
from zengine_jupyter.protocol import (
    MessageRecord,
    ProviderError,
    RecordedToolCall,
    TurnEndRecord,
    TurnStartRecord,
    UsageRecord,
)
from zengine_jupyter.store import SessionStore, SessionWriter
from zengine_jupyter.testing import FakeClock, ProviderServer, Reply, ScriptedToolCall
from zengine_jupyter.testing.llm import ask, collect

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

SECRET = "sk-live-SECRETvalue-9f8e7d6c5b4a39281706"
NEEDLES = (SECRET, SECRET[-12:], f"Bearer {SECRET}")
TURN = Reply(
    thinking=("plan",),
    text=("Here ", "it is"),
    tool_calls=(ScriptedToolCall("read_file", {"path": "a.py"}),),
)


def _record(writer: SessionWriter, events: list[Any]) -> None:
    """What the engine keeps of a streamed request: the session log's records, the raw
    stream as an artifact, and (via write_meta) meta.json."""
    writer.append(TurnStartRecord())
    writer.append(
        MessageRecord(
            role="assistant",
            text="".join(e.text for e in events if e.type == "text"),
            tool_calls=tuple(
                RecordedToolCall(id=e.id, name=e.name, input=e.input)
                for e in events
                if e.type == "tool_call_end"
            ),
        )
    )
    for e in events:
        if e.type == "usage":
            writer.append(UsageRecord(model=e.model, cost_usd=e.cost_usd, **e.usage.model_dump()))
        elif e.type == "error":
            writer.append(TurnEndRecord(turn_id="t", status="failed", reason=e.message))
    writer.save_artifact(
        "stream.jsonl", "".join(e.model_dump_json() + "\n" for e in events).encode()
    )


def _check_files(zengine_home: Path) -> None:
    files = [p for p in zengine_home.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {"log.jsonl", "meta.json"} <= names, names
    assert any(p.parent.name == "artifacts" for p in files)
    for path in files:
        if path.name == "auth.json":
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
            assert json.loads(path.read_text())["hosts"]["127.0.0.1"]["api_key"] == SECRET
            continue
        _assert_clean(path.read_text(errors="replace"), str(path.relative_to(zengine_home)))


async def _raised(adapter: AnthropicAdapter) -> ProviderError:
    """The error the adapter raises for one request (it must raise), the adapter closed."""
    try:
        async for _ in adapter.events(ask(), CallSpec("m", "low", 100)):
            pass
    except ProviderError as exc:
        return exc
    finally:
        await adapter.aclose()
    raise AssertionError("the adapter raised no ProviderError")


def _assert_clean(text: str, where: str) -> None:
    for needle in NEEDLES:
        assert needle not in text, f"key material found in {where}"


async def test_nothing_written_logged_or_raised_contains_the_key(
    zengine_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    store = AuthStore()
    store.set("127.0.0.1", Secret(SECRET))
    seen: list[Any] = []
    clock = FakeClock()
    writer = SessionStore().create(project=str(zengine_home))
    async with (
        ProviderServer(api_key=SECRET) as good,
        ProviderServer(api_key="sk-other-000000000000") as bad,
    ):
        good.add(Reply.fault(529), TURN, TURN)
        for wire in ("anthropic", "openai"):
            for server in (good, bad):
                url = server.base_url if wire == "anthropic" else server.openai_url
                options = ProviderOptions(model="claude-sonnet-4-6", kind=wire, base_url=url)
                deps = ClientDeps(
                    environ={"ZENGINE_API_KEY": SECRET},
                    auth=store,
                    sleep=clock.sleep,
                    meter=CostMeter(),
                )
                client = build_client(options, deps=deps)
                seen += [client, options, deps, resolve_key("127.0.0.1", {}, store)]
                try:
                    events = await collect(client, ask())
                finally:
                    await client.aclose()
                seen += events
                _record(writer, events)
        assert [e.type for e in seen if hasattr(e, "type")].count("error") == 2  # the two 401s
        writer.write_meta()
        await writer.aclose()
        # the raw exceptions, as an adapter raises them (401 echoing a masked key; a lost stream)
        endpoint = detect_endpoint("anthropic", bad.base_url, "m")
        adapter = AnthropicAdapter(endpoint, Secret(SECRET), Timeouts())
        seen.append(adapter)
        errors = [await _raised(adapter)]
        good.add(Reply(text=("x",), drop="after_text"))
        adapter = AnthropicAdapter(
            detect_endpoint("anthropic", good.base_url, "m"), Secret(SECRET), Timeouts()
        )
        errors.append(await _raised(adapter))
    assert len(errors) == 2
    await CatalogCache(url=f"{good.base_url}/api.json").refresh()  # offline: nothing written
    for error in errors:
        _assert_clean(str(error), "an exception message")
        _assert_clean(repr(error), "an exception repr")
        _assert_clean("".join(traceback.format_exception(error)), "a traceback")
    for obj in seen:
        _assert_clean(repr(obj), f"repr of {type(obj).__name__}")
        if hasattr(obj, "model_dump_json"):
            _assert_clean(obj.model_dump_json(), f"JSON of {type(obj).__name__}")
    for record in caplog.records:
        _assert_clean(record.getMessage(), f"log record {record.name}")
    assert caplog.records, "DEBUG logging captured nothing: the check would be empty"
    _check_files(zengine_home)
    # the check bites: the key did travel, to its own host only
    assert any(SECRET in r.headers.get("x-api-key", "") for r in good.requests)
