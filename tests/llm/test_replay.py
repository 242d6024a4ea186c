"""The replay provider: a chat recorded against the local provider server (real wire format)
replays offline in a copy of the project with no key, says so, and fails clearly when the
requests drift from the recording; which provider ``build_client`` picks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from zengine_jupyter.engine import FixedApprovals, Session, SessionOptions
from zengine_jupyter.llm import (
    ProviderClient,
    ProviderOptions,
    RecordingClient,
    ReplayClient,
    build_client,
    read_cassette,
)
from zengine_jupyter.protocol import CassetteError, EngineError, EngineEvent, Notice
from zengine_jupyter.testing import ProviderServer, Reply, ScriptedToolCall

KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ZENGINE_API_KEY", "ZENGINE_BASE_URL")


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in (*KEYS, "ZENGINE_CASSETTE", "ZENGINE_RECORD"):
        monkeypatch.delenv(var, raising=False)


def _project(root: Path) -> Path:
    root.mkdir()
    (root / "pipeline.py").write_text("RATE = 1\n")
    return root


def _script(server: ProviderServer) -> None:
    server.add(
        Reply(text=("Reading it.",),
              tool_calls=(ScriptedToolCall("Read", {"path": "pipeline.py"}),)),
        Reply(tool_calls=(ScriptedToolCall(
            "Edit", {"path": "pipeline.py", "old_string": "RATE = 1", "new_string": "RATE = 2"}),)),
        Reply(text=("RATE is 2 now.",)),
    )  # fmt: skip


async def _run(project: Path, prompt: str) -> tuple[str, str, list[EngineEvent | None], Session]:
    session = await Session.open(
        SessionOptions(project=project, approvals=FixedApprovals(allow=True))
    )
    sub = session.subscribe()
    outcome = await session.submit(prompt)
    events: list[EngineEvent | None] = []
    while sub.pending():
        events.append(await sub.get())
    sub.close()
    await session.aclose()
    return outcome.status, outcome.text, events, session


async def _recorded_then_offline(tmp_path: Path, zengine_home: Path) -> Path:
    """Record "Set RATE to 2" live from the local server, then leave only the cassette set."""
    cassette = tmp_path / "chat.jsonl"
    async with ProviderServer() as server:
        _script(server)
        (zengine_home / "settings.toml").write_text(
            f'[provider]\nkind = "openai"\nbase_url = "{server.base_url}"\n'
            f'record = "{cassette}"\n[model]\nmain = "gpt-5"\n'
        )
        await _run(_project(tmp_path / "a"), "Set RATE to 2")
    (zengine_home / "settings.toml").write_text(f'[provider]\ncassette = "{cassette}"\n')
    return cassette


async def test_record_then_replay_offline_in_a_copy(tmp_path: Path, zengine_home: Path) -> None:
    cassette = tmp_path / "cassettes" / "chat.jsonl"
    settings = zengine_home / "settings.toml"
    first = _project(tmp_path / "first")
    async with ProviderServer() as server:
        _script(server)
        settings.write_text(
            f'[provider]\nkind = "openai"\nbase_url = "{server.base_url}"\n'
            f'record = "{cassette}"\ncassette = "{cassette}"\n[model]\nmain = "gpt-5"\n'
        )
        status, text, events, _ = await _run(first, "Set RATE to 2")
    assert (status, text) == ("completed", "RATE is 2 now.")
    assert any(isinstance(e, Notice) and e.topic == "replay" and "recording" in e.text
               for e in events)  # fmt: skip
    header, steps = read_cassette(cassette)
    assert header.host == "127.0.0.1"
    assert [s.expect.texts for s in steps] == [["Set RATE to 2"], [], []]
    assert steps[1].expect.tool_results
    assert not steps[1].expect.errors

    # offline: no key, no base URL, nothing listening; a copy of the project elsewhere
    copy = tmp_path / "elsewhere" / "proj"
    shutil.copytree(tmp_path / "first", copy, ignore=shutil.ignore_patterns("*.tmp"))
    (copy / "pipeline.py").write_text("RATE = 1\n")
    settings.write_text(f'[provider]\ncassette = "{cassette}"\n')
    status, text, events, session = await _run(copy, "Set RATE to 2")
    assert (status, text) == ("completed", "RATE is 2 now.")
    assert (copy / "pipeline.py").read_text() == "RATE = 2\n"
    notices = [e.text for e in events if isinstance(e, Notice) and e.topic == "replay"]
    assert notices
    assert notices[0].startswith(f"replaying a recorded session from {cassette}")
    assert (await session.commands["model"](session, "")).text.startswith("model: replay (")
    lines = (session.writer.folder / "log.jsonl").read_text().splitlines()
    log = [json.loads(line) for line in lines]
    assert {r["model"] for r in log if r["kind"] == "usage"} == {"replay"}


async def test_a_diverging_request_names_the_cassette_and_the_step(
    tmp_path: Path, zengine_home: Path
) -> None:
    cassette = await _recorded_then_offline(tmp_path, zengine_home)
    status, _, events, _ = await _run(_project(tmp_path / "b"), "Set RATE to 3 instead")
    assert status == "failed"
    errors = [e for e in events if isinstance(e, EngineError)]
    assert errors, events
    message = errors[0].message
    assert message.startswith("this notebook's recording has no answer for a new message: "
                              "connect a model to chat live (")  # fmt: skip
    assert f"cassette {cassette} diverged at step 1 of 3" in message
    assert "'Set RATE to 2'" in message
    assert "'Set RATE to 3 instead'" in message
    assert "zengine cassette record" in (errors[0].hint or "")


async def test_a_denied_call_is_a_divergence_when_the_recording_allowed_it(
    tmp_path: Path, zengine_home: Path
) -> None:
    await _recorded_then_offline(tmp_path, zengine_home)
    project = _project(tmp_path / "b")
    session = await Session.open(
        SessionOptions(project=project, approvals=FixedApprovals(allow=False))
    )
    sub = session.subscribe()
    outcome = await session.submit("Set RATE to 2")
    errors = []
    while sub.pending():
        if isinstance(event := await sub.get(), EngineError):
            errors.append(event.message)
    sub.close()
    await session.aclose()
    assert outcome.status == "failed"
    assert (project / "pipeline.py").read_text() == "RATE = 1\n"
    assert any("diverged at step 3 of 3" in m and "(error)" in m for m in errors), errors


def test_malformed_and_missing_cassettes_are_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"kind": "cassette", "version": 1, "recorded_at": "x",
                               "host": "h"}) + "\n{not json\n")  # fmt: skip
    with pytest.raises(CassetteError, match=r"bad\.jsonl line 2 is not a cassette record"):
        read_cassette(bad)
    with pytest.raises(CassetteError, match=r"no cassette at .*missing\.jsonl"):
        read_cassette(tmp_path / "missing.jsonl")


@pytest.mark.parametrize(
    ("options", "environ", "expected"),
    [
        (ProviderOptions(cassette="c.jsonl"), {}, "replay"),
        (ProviderOptions(cassette="c.jsonl"), {"ANTHROPIC_API_KEY": "k"}, "api.anthropic.com"),
        (ProviderOptions(cassette="c.jsonl"), {"OPENAI_API_KEY": "k"}, "api.openai.com"),
        (ProviderOptions(cassette="c.jsonl", base_url="http://127.0.0.1:11434/v1", model="m"),
         {}, "127.0.0.1"),
        (ProviderOptions(kind="replay", cassette="c.jsonl"), {"ANTHROPIC_API_KEY": "k"}, "replay"),
        (ProviderOptions(), {}, "failing"),
        (ProviderOptions(kind="replay"), {}, "failing"),
    ],
)  # fmt: skip
def test_which_provider_is_chosen(
    options: ProviderOptions, environ: dict[str, str], expected: str
) -> None:
    from zengine_jupyter.llm import AuthStore, ClientDeps, FailingClient, replay_cassette

    deps = ClientDeps(environ=environ, auth=AuthStore(Path("/nonexistent/auth.json")))
    client = build_client(options, "main", deps)
    # what the status widget says agrees with the client a chat gets
    assert (replay_cassette(options, deps) is not None) == (expected == "replay")
    if expected == "replay":
        assert isinstance(client, ReplayClient)
        assert "replaying a recorded session from c.jsonl" in client.notice
    elif expected == "failing":
        assert isinstance(client, FailingClient)
    else:
        assert isinstance(client, ProviderClient)
        assert client.adapter.endpoint.host == expected


def test_record_wraps_the_live_client(tmp_path: Path) -> None:
    from zengine_jupyter.llm import ClientDeps

    out = tmp_path / "rec.jsonl"
    options = ProviderOptions(base_url="http://127.0.0.1:9/v1", model="m", record=str(out))
    client = build_client(options, "main", ClientDeps(environ={}))
    assert isinstance(client, RecordingClient)
    assert client.notice == f"recording this session to {out}"
    assert read_cassette(out)[1] == []  # the header is written at once, steps as they come
