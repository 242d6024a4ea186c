"""Issue 18.8: a sandboxed command must not read the engine's secrets.

A scripted model's Bash calls run through a real Session under real bubblewrap, with provider
keys in the engine's environment, keys for other hosts in ``auth.json`` and another chat's log
in the data folder. Whatever the commands try (read the data folder, list another chat, read
``/proc/*/environ``, print their own environment), no key or other chat's text reaches the tool
result, the chat's log, its artifacts or the request sent to the provider.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

from zengine_jupyter.config import HOME_ENV
from zengine_jupyter.engine import Session, SessionOptions
from zengine_jupyter.host import child_environment
from zengine_jupyter.protocol import EngineEvent, ToolCallFinished
from zengine_jupyter.testing import (
    ProviderServer,
    RecordingApprovals,
    Reply,
    ScriptedToolCall,
    write_provider_settings,
)
from zengine_jupyter.testing.components import require_component

ANTHROPIC_KEY = "sk-ant-ENGINE-ENV-7f3a9c"
ZENGINE_KEY = "zk-ENGINE-ENV-51be02"
SMUGGLED_KEY = "lc-SMUGGLED-c0ffee"
STORED_KEY = "sk-STORED-FOR-OPENAI-93d1"
OTHER_CHAT = "OTHER-CHAT-PRIVATE-4411"
CHECKPOINT = "CHECKPOINT-CONTENT-8e21"
SECRETS = (ANTHROPIC_KEY, ZENGINE_KEY, SMUGGLED_KEY, STORED_KEY, OTHER_CHAT, CHECKPOINT)


class World:
    def __init__(self, base: Path, project: Path, home: Path) -> None:
        self.base = base
        self.project = project
        self.home = home


def _plant(home: Path) -> None:
    """What a data folder holds: keys for other hosts, another chat, a checkpoint."""
    home.mkdir(parents=True, exist_ok=True)
    auth = {"version": 1, "hosts": {"api.openai.com": {"api_key": STORED_KEY}}}
    (home / "auth.json").write_text(json.dumps(auth))
    (home / "auth.json").chmod(0o600)
    other = home / "sessions" / "other-chat"
    other.mkdir(parents=True)
    (other / "log.jsonl").write_text(json.dumps({"kind": "user", "text": OTHER_CHAT}) + "\n")
    shadow = home / "checkpoints" / "some-project"
    shadow.mkdir(parents=True)
    (shadow / "blob").write_text(CHECKPOINT)


# where the data folder is: apart from the project, inside it, or around it
PLACES = ("apart", "inside-project", "around-project")


@pytest.fixture(params=PLACES)
def world(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", None)
    place = request.param
    if place == "apart":
        project, home = tmp_path / "proj", tmp_path / "zhome"
    elif place == "inside-project":
        project = tmp_path / "proj"
        home = project / ".cache-zengine"
    else:  # the data folder holds the project (ZENGINE_HOME=/work, project /work/proj)
        home = tmp_path / "zhome"
        project = home / "proj"
    project.mkdir(parents=True)
    _plant(home)
    monkeypatch.setenv(HOME_ENV, str(home))
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("ZENGINE_API_KEY", ZENGINE_KEY)
    monkeypatch.setenv("LC_API_KEY", SMUGGLED_KEY)  # LC_* used to pass the allowlist
    return World(tmp_path, project, home)


def _settings(world: World, server: ProviderServer, sandbox: bool) -> None:
    write_provider_settings(
        world.home, server.base_url, f"[shell.sandbox]\nenabled = {str(sandbox).lower()}\n"
    )


def _attacks(home: Path) -> tuple[str, ...]:
    return (
        f"cat {home}/auth.json; cat $ZENGINE_HOME/auth.json; grep -r api_key {home}",
        f"ls -AR {home}/sessions; cat {home}/sessions/*/*; cat {home}/sessions/*/*/*",
        f"cat {home}/checkpoints/*/*; find {home} -type f | head",
        "cat /proc/*/environ | tr '\\0' '\\n' | grep -i KEY",
        "env | grep -i API_KEY; env | grep -i _KEY",
        "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; done 2>/dev/null | grep KEY",
    )


async def _turn(world: World, server: ProviderServer, commands: tuple[str, ...]) -> list[str]:
    """One turn running ``commands``; returns every text that left the sandbox."""
    calls = tuple(ScriptedToolCall("Bash", {"command": c}) for c in commands)
    server.add(Reply(tool_calls=calls), Reply(text=("done",)))
    session = await Session.open(
        SessionOptions(project=world.project, approvals=RecordingApprovals(default="allow_once"))
    )
    events = session.subscribe()
    outcome = await session.submit("go")
    assert outcome.status == "completed", outcome.reason
    await session.aclose()
    seen: list[EngineEvent] = [e async for e in events]
    results = [e for e in seen if isinstance(e, ToolCallFinished)]
    assert len(results) == len(commands)
    texts = [r.output for r in results]
    # the chat's own folder: the log, the metadata and every artifact (Bash saves all output)
    for path in session.writer.folder.rglob("*"):
        if path.is_file():
            texts.append(path.read_text(errors="replace"))
    artifacts = list((session.writer.folder / "artifacts").glob("bash-*.log"))
    assert len(artifacts) == len(commands)
    texts += [json.dumps(r.json) for r in server.requests if r.json is not None]
    return texts


def _leaks(texts: list[str]) -> list[str]:
    return [s for s in SECRETS if any(s in t for t in texts)]


async def test_sandboxed_bash_cannot_read_the_data_folder_keys_or_other_chats(
    world: World,
) -> None:
    """Attack: a sandboxed Bash reads auth.json (keys for other hosts), another chat's log and
    the checkpoints from the data folder, the engine's environment through /proc/*/environ and
    its own environment, so the secrets reach the tool result, log, artifact and provider."""
    require_component("bwrap")
    async with ProviderServer() as server:
        _settings(world, server, sandbox=True)
        controls = (
            f"find {world.home} -type f -size +0 -not -path '{world.project}/*' | wc -l",
            # the warm sandbox's helper and keepers are not readable (not dumpable): quiet
            "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c '^PATH='",
        )
        texts = await _turn(world, server, (*controls, *_attacks(world.home)))
        assert "run in a sandbox" in str(server.requests[0].json["system"])
    assert _leaks(texts) == []
    # the commands did run: no file of the data folder (beside the project) had content, and
    # /proc/*/environ was readable, for the sandbox's own processes only
    assert texts[0].strip() == "0"
    assert int(texts[1].strip()) >= 1
    # the data folder is intact, and still the engine's own
    assert STORED_KEY in (world.home / "auth.json").read_text()
    assert (world.home / "sessions" / "other-chat" / "log.jsonl").exists()


async def test_sandboxed_bash_cannot_plant_files_in_the_data_folder(world: World) -> None:
    """Attack: a sandboxed Bash writes the user settings in the data folder (with
    ZENGINE_HOME the user settings live there: a hook there runs on the host next time) or
    replaces auth.json, when the data folder lies inside a writable area."""
    require_component("bwrap")
    home = world.home
    plant = (
        f"echo '[[hooks.session_start]]' >> {home}/settings.toml; "
        f"echo '{{}}' > {home}/auth.json; mkdir {home}/sessions/planted; "
        f"mv {home} {world.base}/moved-home; echo tried"
    )
    async with ProviderServer() as server:
        _settings(world, server, sandbox=True)
        before = (home / "settings.toml").read_text()
        texts = await _turn(world, server, (plant,))
    assert (home / "settings.toml").read_text() == before
    assert STORED_KEY in (home / "auth.json").read_text()
    assert not (home / "sessions" / "planted").exists()
    assert not (world.base / "moved-home").exists()
    assert "tried" in texts[0]


async def test_unsandboxed_bash_gets_no_key_from_the_environment(world: World) -> None:
    """Attack: with the sandbox off, a Bash command prints its environment; a provider key
    in the engine's environment (also one smuggled in an LC_* variable) must not be there."""
    commands = ("env | grep -i KEY; echo rc=$?", "echo $ANTHROPIC_API_KEY $ZENGINE_API_KEY")
    async with ProviderServer() as server:
        _settings(world, server, sandbox=False)
        texts = await _turn(world, server, commands)
    leaked = [s for s in (ANTHROPIC_KEY, ZENGINE_KEY, SMUGGLED_KEY) if any(s in t for t in texts)]
    assert leaked == []


@pytest.mark.parametrize(
    "name",
    [
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "ZENGINE_API_KEY",
        "GEMINI_API_KEY",
        "LC_API_KEY",
        "LC_GITHUB_TOKEN",
        "LC_DB_PASSWORD",
        "LC_CLIENT_SECRET",
        "LC_MY_SECRET_VALUE",
    ],
)
def test_child_environment_never_carries_a_key(name: str) -> None:
    """Attack: a key-like variable rides along to a child (Bash, hook, language server)
    through the inherited environment, including LC_* names that the allowlist passes."""
    base = {"PATH": os.defpath, "HOME": "/home/u", "LC_ALL": "C.UTF-8", name: "secret-value"}
    env = child_environment(base=base)
    assert name not in env
    assert env["LC_ALL"] == "C.UTF-8"
    assert env["PATH"] == os.defpath
    # a value the caller configured explicitly for that child (a server's own env) is kept
    assert child_environment({name: "configured"}, base=base)[name] == "configured"
