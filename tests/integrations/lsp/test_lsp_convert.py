"""Pure pieces: positions in UTF-16, result shapes every server may send, progress tokens."""

from __future__ import annotations

from pathlib import Path

from zengine_jupyter.integrations.lsp import ProgressTracker
from zengine_jupyter.integrations.lsp._convert import (
    LineCache,
    edit_items,
    hover_text,
    locations,
    rename_preview_text,
    symbol_locations,
)
from zengine_jupyter.integrations.lsp._progress import LONG_WORK_S
from zengine_jupyter.integrations.lsp._text import chars_to_utf16, utf16_to_chars


def test_positions_count_utf16_units_for_the_server_and_characters_for_the_model() -> None:
    line = "s = '😀é' + name"
    index = line.index("name")
    assert chars_to_utf16(line, index) == index + 1  # the emoji is two UTF-16 units
    assert utf16_to_chars(line, index + 1) == index
    assert utf16_to_chars(line, 999) == len(line)


def _project(tmp_path: Path) -> tuple[Path, LineCache]:
    (tmp_path / "a.py").write_text("x = '😀'; target = 1\nprint(target)\n")
    return tmp_path / "a.py", LineCache(tmp_path)


def _range(line: int, start: int, end: int) -> dict[str, object]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def test_locations_accept_location_links_and_single_locations(tmp_path: Path) -> None:
    path, cache = _project(tmp_path)
    uri = path.as_uri()
    link = [
        {
            "targetUri": uri,
            "targetRange": _range(0, 0, 20),
            "targetSelectionRange": _range(0, 10, 16),
        }
    ]
    found = locations(link, cache)
    # "target" starts at UTF-16 unit 10 (the emoji takes two), which is character 10 (1-based)
    assert [(loc.path, loc.line, loc.column) for loc in found] == [("a.py", 1, 10)]
    assert found[0].render() == "a.py:1:10: x = '😀'; target = 1"
    assert locations({"uri": uri, "range": _range(1, 6, 12)}, cache)[0].column == 7
    assert locations(None, cache) == []


def test_flat_symbol_information_uses_its_own_locations(tmp_path: Path) -> None:
    path, cache = _project(tmp_path)
    flat = [{"name": "target", "kind": 13, "containerName": "a",
             "location": {"uri": path.as_uri(), "range": _range(0, 10, 16)}}]  # fmt: skip
    [symbol] = symbol_locations(flat, None, cache)
    assert symbol.render() == "variable target (in a)  a.py:1:10: x = '😀'; target = 1"


def test_hover_contents_in_every_shape() -> None:
    assert hover_text({"contents": {"kind": "markdown", "value": "**doc**"}}) == "**doc**"
    assert hover_text({"contents": [{"language": "python", "value": "x: int"}, "more"]}) == (
        "```python\nx: int\n```\n\nmore"
    )
    assert hover_text({"contents": ""}) is None
    assert hover_text(None) is None


def test_rename_preview_from_a_changes_map_is_computed_in_memory(tmp_path: Path) -> None:
    path, cache = _project(tmp_path)
    before = path.read_bytes()
    edit = {"changes": {path.as_uri(): [
        {"range": _range(0, 10, 16), "newText": "goal"},
        {"range": _range(1, 6, 12), "newText": "goal"},
    ]}}  # fmt: skip
    items, diff = rename_preview_text(edit_items(edit, cache), cache)
    assert [(e.line, e.column, e.end_column) for e in items] == [(1, 10, 16), (2, 7, 13)]
    assert "+x = '😀'; goal = 1" in diff
    assert "+print(goal)" in diff
    assert path.read_bytes() == before


def test_progress_is_busy_while_a_begun_token_is_open() -> None:
    now = [100.0]
    tracker = ProgressTracker(clock=lambda: now[0])
    busy_at_start = tracker.busy  # a local, so mypy does not carry the narrowing past update()
    assert not busy_at_start
    tracker.update({"token": "t1", "value": {"kind": "begin", "title": "Indexing"}})
    tracker.update({"token": 7, "value": {"kind": "begin", "title": "Loading"}})
    tracker.update({"token": "t1", "value": {"kind": "report", "message": "3/10"}})
    busy_when_begun = tracker.busy  # begun just now: maybe a request's own short work
    assert not busy_when_begun
    now[0] += LONG_WORK_S
    assert tracker.busy
    assert tracker.titles == ["Indexing", "Loading"]
    assert tracker.last_title == "Indexing: 3/10"
    tracker.update({"token": "t1", "value": {"kind": "end"}})
    assert tracker.busy
    tracker.update({"token": 7, "value": {"kind": "end"}})
    tracker.update({"token": "never-begun", "value": {"kind": "end"}})
    tracker.update("garbage")
    assert not tracker.busy


def test_a_lint_that_ends_at_once_never_makes_the_server_busy() -> None:
    """pylsp wraps each file's lint in a progress token ("lint: pyflakes") and ends it just
    after publishing: a write right then must still be waited on, not told "indexing"."""
    now = [0.0]
    tracker = ProgressTracker(clock=lambda: now[0])
    for _ in range(3):
        tracker.update({"token": "lint", "value": {"kind": "begin", "title": "lint: pyflakes"}})
        now[0] += LONG_WORK_S / 10
        busy_in_lint = tracker.busy
        assert not busy_in_lint
        tracker.update({"token": "lint", "value": {"kind": "end"}})
    assert not tracker.busy
