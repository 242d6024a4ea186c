"""Issue 19.10: two chats in one project share its checkpoints, so a code rewind of one also
reverts the other's edits since the checkpoint. The rewind warns before (each point lists the
other chats' edits since its checkpoint) and lists, after, the ones it put back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from zengine_jupyter.engine import (
    FixedApprovals,
    Session,
    SessionOptions,
    describe_other_chats,
    describe_rewind,
    rewind,
    rewind_points,
)
from zengine_jupyter.engine._other_chats import edits_since, load_other_chats
from zengine_jupyter.protocol import (
    MessageRecord,
    OtherChatEdits,
    RecordedToolCall,
    Rewound,
    ToolResultRecord,
)
from zengine_jupyter.store import SessionStore
from zengine_jupyter.testing import (
    Reply,
    ScriptedToolCall,
    configured_provider,
    run_cli,
)


def _call(name: str, **arguments: str) -> ScriptedToolCall:
    return ScriptedToolCall(name, dict(arguments))


async def _open(project: Path) -> Session:
    return await Session.open(SessionOptions(project=project, approvals=FixedApprovals(True)))


async def test_a_code_rewind_warns_and_lists_the_other_chats_edits_it_reverts(
    tmp_path: Path, zengine_home: Path
) -> None:
    """Attack: chat A's rewind silently reverts chat B's concurrent edits in the project."""
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.txt").write_text("one\n")
    async with configured_provider(zengine_home) as server:
        server.add(
            # B, turn 1 (before A's checkpoint): kept by a rewind of A, never listed
            Reply(tool_calls=(_call("Write", path="early.txt", content="early\n"),)),
            Reply(text=("B wrote early",)),
            # A, turn 1: its checkpoint is taken before the Read
            Reply(tool_calls=(_call("Read", path="a.txt"),)),
            Reply(text=("A read it",)),
            # B, turn 2 (after A's checkpoint): a Write, an Edit, a shell command
            Reply(tool_calls=(
                _call("Write", path="b.txt", content="by B\n"),
                _call("Read", path="a.txt"),
            )),
            Reply(tool_calls=(
                _call("Edit", path="a.txt", old_string="one", new_string="one, edited by B"),
                _call("Bash", command="echo c > c.txt"),
            )),
            Reply(text=("B changed things",)),
        )  # fmt: skip
        a, b = await _open(project), await _open(project)
        try:
            assert (await b.submit("b edits early")).status == "completed"
            assert (await a.submit("a reads")).status == "completed"
            assert (await b.submit("b edits late")).status == "completed"
            assert (project / "a.txt").read_text() == "one, edited by B\n"

            (point,) = await rewind_points(a)  # the preview, before any rewind
            assert point.checkpoint_id is not None
            assert point.checkpoint_at is not None
            warned = OtherChatEdits(session_id=b.id, title="b edits early",  # its first message
                                    paths=["a.txt", "b.txt"], commands=1)  # fmt: skip
            assert point.other_chats == [warned]
            listing = (await a.submit("/rewind")).text
            assert f"a code rewind also reverts changes another chat made since: a.txt, b.txt " \
                f"(chat b edits early · {b.id})" in listing  # fmt: skip
            assert "another chat ran 1 shell command since" in listing

            code, out, err = await run_cli("checkpoints", "list", a.id, cwd=project)
            assert code == 0, err
            assert "changes another chat made since: a.txt, b.txt" in out

            events = a.subscribe()
            result = await rewind(a, "1", code=True, conversation=False)
        finally:
            await a.aclose()
            await b.aclose()
    (rewound,) = [e async for e in events if isinstance(e, Rewound)]
    assert rewound.text == describe_rewind(result)  # every view shows these words
    assert rewound.warnings == describe_other_chats(result.other_chats, done=True)
    assert rewound.warnings
    assert rewound.warnings[0] in rewound.text.splitlines()
    assert result.code is not None
    assert result.code.restored == ["a.txt"]
    assert sorted(result.code.removed) == ["b.txt", "c.txt"]
    assert (project / "a.txt").read_text() == "one\n"  # B's edit reverted, as warned
    assert (project / "early.txt").exists()  # B's edit before the checkpoint stays
    (other,) = result.other_chats
    assert (other.session_id, other.paths, other.commands) == (b.id, ["a.txt", "b.txt"], 1)
    text = describe_rewind(result)
    assert f"also reverted changes another chat made since: a.txt, b.txt (chat b edits early · " \
        f"{b.id})" in text  # fmt: skip
    assert "any file they changed was put back too" in text


def test_other_chat_edits_come_from_file_tools_and_subagents_inside_the_project(
    tmp_path: Path,
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    store = SessionStore(tmp_path / "sessions")
    since = datetime.now(UTC)
    old, new = since - timedelta(seconds=5), since + timedelta(seconds=5)

    def calls(*pairs: tuple[str, dict[str, str]]) -> MessageRecord:
        made = [RecordedToolCall(id=f"c{i}", name=n, input=a) for i, (n, a) in enumerate(pairs)]
        return MessageRecord(role="assistant", ts=old, tool_calls=tuple(made))

    with store.create(project=project, session_id="other") as writer:
        writer.append(calls(("Write", {"path": "x.py"}), ("Edit", {"path": "gone.py"}),
                            ("Write", {"path": str(tmp_path / "outside.py")}),
                            ("NotebookEdit", {"path": f"{project}/nb/n.ipynb"}),
                            ("Write", {"path": "old.py"}), ("Grep", {"path": "y.py"})))  # fmt: skip
        writer.append(ToolResultRecord(tool_call_id="c0", ts=new, output="Updated x.py"))
        writer.append(ToolResultRecord(tool_call_id="c1", ts=new, is_error=True, output="no"))
        writer.append(ToolResultRecord(tool_call_id="c2", ts=new, output="Created"))
        writer.append(ToolResultRecord(tool_call_id="c3", ts=new, output="Inserted"))
        writer.append(ToolResultRecord(tool_call_id="c4", ts=old, output="Created"))
        writer.append(ToolResultRecord(tool_call_id="c5", ts=new, output="found"))
        sub = RecordedToolCall(id="s1", name="Write", input={"path": "sub.py"})
        writer.append_agent("a1", MessageRecord(role="assistant", ts=old, tool_calls=(sub,)))
        interrupted = ToolResultRecord(
            tool_call_id="s1", ts=new, is_error=True, repair=True, output="interrupted"
        )
        writer.append_agent("a1", interrupted)
    with store.create(project=tmp_path / "elsewhere", session_id="unrelated") as writer:
        writer.append(calls(("Write", {"path": "x.py"})))
        writer.append(ToolResultRecord(tool_call_id="c0", ts=new))
    store.create(project=project, session_id="me").close()

    chats = load_other_chats(store.root, "me", str(project), since)
    assert [c.session_id for c in chats] == ["other"]
    (edits,) = edits_since(chats, since)
    # an error wrote nothing, outside the project is never rewound, Grep changes nothing,
    # old.py was changed before the checkpoint; an interrupted Write may have written
    assert edits.paths == ["nb/n.ipynb", "sub.py", "x.py"]
    assert edits.commands == 0
    (narrowed,) = edits_since(chats, since, only={"x.py", "c.txt"})
    assert narrowed.paths == ["x.py"]
    assert edits_since(chats, since, only={"c.txt"}) == []
    assert load_other_chats(store.root, "me", str(project), new + timedelta(hours=1)) == []
