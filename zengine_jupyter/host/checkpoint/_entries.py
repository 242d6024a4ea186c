"""Text the shadow repository reads and writes: ``git log`` entries, the exclude file."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime
from pathlib import Path

from zengine_jupyter.config import write_private
from zengine_jupyter.host._git_global import global_excludes_text
from zengine_jupyter.protocol import CheckpointInfo, NotStored

__all__ = ["exclude_text", "parse_log_entry", "user_git_dir", "write_if_changed"]


def parse_log_entry(entry: str) -> CheckpointInfo:
    commit, created, body = entry.strip("\n").split("\x1f", 2)
    title = body.split("\n", 1)[0]
    meta: dict[str, object] = {}
    for line in body.splitlines():
        if line.startswith("zengine: "):
            meta = json.loads(line.removeprefix("zengine: "))
    raw_not_stored = meta.get("not_stored", [])
    return CheckpointInfo(
        id=commit,
        message=title,
        created=datetime.fromtimestamp(int(created), UTC),
        file_count=int(str(meta.get("file_count", 0))),
        not_stored=[NotStored.model_validate(n) for n in raw_not_stored]
        if isinstance(raw_not_stored, list)
        else [],
    )


def user_git_dir(root: Path) -> Path | None:
    """The user's git folder for ``root`` (read only, for its info/exclude)."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    if dot_git.is_file():
        text = dot_git.read_text("utf-8", "replace").strip()
        if text.startswith("gitdir:"):
            target = Path(text.removeprefix("gitdir:").strip())
            target = target if target.is_absolute() else root / target
            common = target / "commondir"
            if common.is_file():
                return (target / common.read_text().strip()).resolve()
            return target
    return None


def exclude_text(root: Path, always: tuple[str, ...]) -> str:
    """The shadow's exclude file: global excludes, the repository's info/exclude, ``always``."""
    lines = [
        "# written by zengine: the user's global excludes (core.excludesFile), the",
        "# repository's info/exclude, then zengine's own (a later line wins)",
        "",
        global_excludes_text(),
    ]
    user_exclude = user_git_dir(root)
    if user_exclude is not None:
        with contextlib.suppress(OSError):
            lines.append((user_exclude / "info" / "exclude").read_text("utf-8", "replace"))
    lines += always
    return "\n".join(lines) + "\n"


def write_if_changed(path: Path, text: str) -> None:
    try:
        if path.read_text("utf-8") == text:
            return  # unchanged: keeps git's untracked cache valid
    except OSError:
        pass
    tmp = path.with_suffix(".tmp")
    write_private(tmp, text)
    tmp.replace(path)
