"""Hooks: real child processes, JSON on stdin, timeouts, blocking, and only trusted layers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from zengine_jupyter.config import HookSettings, HooksSettings, TrustStore, load_settings
from zengine_jupyter.host import hook_matches, run_hooks
from zengine_jupyter.protocol import HookPayload

RECORD = "import json,os,sys; d=json.load(sys.stdin); d['env']=os.environ['ZENGINE_HOOK_EVENT']; "


def _recorder(out: Path) -> list[str]:
    code = RECORD + f"open({str(out)!r}, 'a').write(json.dumps(d) + '\\n')"
    return [sys.executable, "-c", code]


def _payload(event: str = "pre_tool_use", tool: str | None = "Bash") -> HookPayload:
    return HookPayload(
        event=event,  # type: ignore[arg-type]
        session_id="s1",
        project_dir="/p",
        tool_name=tool,
        tool_input={"command": "ls"} if tool else None,
    )


async def test_a_hook_gets_the_payload_on_stdin(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    hooks = HooksSettings(post_tool_use=[HookSettings(command=_recorder(out))])
    outcome = await run_hooks(hooks, _payload("post_tool_use"), cwd=tmp_path)
    assert not outcome.blocked
    assert [r.returncode for r in outcome.runs] == [0]
    (seen,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert seen["event"] == seen["env"] == "post_tool_use"
    assert seen["tool_name"] == "Bash"
    assert seen["tool_input"] == {"command": "ls"}


async def test_a_pre_tool_hook_blocks_with_its_message(tmp_path: Path) -> None:
    out = tmp_path / "after.jsonl"
    block = [sys.executable, "-c", "import sys; sys.stderr.write('no rm here'); sys.exit(2)"]
    hooks = HooksSettings(
        pre_tool_use=[HookSettings(command=block), HookSettings(command=_recorder(out))]
    )
    outcome = await run_hooks(hooks, _payload(), cwd=tmp_path)
    assert outcome.blocked
    assert outcome.message == "no rm here"
    assert not out.exists()  # hooks after the block do not run


async def test_exit_2_blocks_only_before_a_tool(tmp_path: Path) -> None:
    block = [sys.executable, "-c", "import sys; sys.exit(2)"]
    hooks = HooksSettings(stop=[HookSettings(command=block)])
    outcome = await run_hooks(hooks, _payload("stop", None), cwd=tmp_path)
    assert not outcome.blocked
    assert [r.returncode for r in outcome.failures] == [2]


async def test_a_slow_pre_tool_hook_is_stopped_and_blocks(tmp_path: Path) -> None:
    slow = [sys.executable, "-c", "import time; time.sleep(30)"]
    hooks = HooksSettings(pre_tool_use=[HookSettings(command=slow, timeout=0.5)])
    outcome = await run_hooks(hooks, _payload(), cwd=tmp_path)
    assert outcome.blocked
    assert outcome.message is not None
    assert "timed out after 0.5 s" in outcome.message
    (run,) = outcome.runs
    assert run.returncode is None


async def test_a_missing_hook_program_is_reported(tmp_path: Path) -> None:
    hooks = HooksSettings(
        session_start=[HookSettings(command="no-such-program-zz --flag")],
        pre_tool_use=[HookSettings(command="no-such-program-zz")],
    )
    start = await run_hooks(hooks, _payload("session_start", None), cwd=tmp_path)
    assert not start.blocked
    assert start.runs[0].argv == ("no-such-program-zz", "--flag")
    assert start.runs[0].error is not None
    assert "could not start" in start.runs[0].error
    assert (await run_hooks(hooks, _payload(), cwd=tmp_path)).blocked


def test_matchers() -> None:
    assert hook_matches("*", None)
    assert hook_matches("", "Edit")
    assert hook_matches("Edit|Write", "Write")
    assert hook_matches("mcp__github__*", "mcp__github__create_issue")
    assert not hook_matches("Edit|Write", "Bash")
    assert not hook_matches("Bash", None)


async def test_only_trusted_layers_contribute_hooks(
    project: Path, project_file: Path, user_file: Path, store: TrustStore, tmp_path: Path
) -> None:
    mine, theirs = tmp_path / "mine.jsonl", tmp_path / "theirs.jsonl"
    hook = "[[hooks.session_start]]\ncommand = {}\n"
    user_file.write_text(hook.format(json.dumps(_recorder(mine))))
    project_file.write_text(hook.format(json.dumps(_recorder(theirs))))
    payload = _payload("session_start", None)

    untrusted = load_settings(project, trust=store)
    await run_hooks(untrusted.settings.hooks, payload, cwd=project)
    assert mine.exists()
    assert not theirs.exists()

    store.trust(project)
    await run_hooks(load_settings(project, trust=store).settings.hooks, payload, cwd=project)
    assert len(mine.read_text().splitlines()) == 2
    assert theirs.exists()
