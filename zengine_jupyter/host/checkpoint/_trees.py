"""The tree objects of a first snapshot, built from its index entries (what ``git write-tree``
would write), so they go into the snapshot's one pack instead of one loose file each.

The format is git's: a tree lists its entries as ``<octal mode> <name>\\0<20-byte id>``, sorted
by name bytes with a folder's name compared as if it ended in ``/``; a folder's mode is
``40000``. ``tests/host/test_checkpoint_first_pack.py`` checks the result against ``git
write-tree`` run on the same index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.host.checkpoint._index import git_mode

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from zengine_jupyter.host.checkpoint._index import IndexEntry

__all__ = ["write_trees"]

_FOLDER_MODE = b"40000"


class _Folder:
    __slots__ = ("files", "folders", "oid")

    def __init__(self) -> None:
        self.files: list[tuple[bytes, bytes, bytes]] = []
        """(name, octal mode, object id)"""
        self.folders: dict[bytes, _Folder] = {}
        self.oid = b""


def write_trees(entries: Iterable[IndexEntry], store: Callable[[bytes], bytes]) -> bytes:
    """Store every tree of ``entries`` with ``store`` (tree bytes -> its id), deepest first;
    the root tree's id. Paths are unique and ``/``-separated, as in the index."""
    root = _Folder()
    made = [root]  # a folder is made after its parent: reversed, children come first
    for entry in entries:
        *parts, name = entry.path.split(b"/")
        folder = root
        for part in parts:
            inner = folder.folders.get(part)
            if inner is None:
                inner = folder.folders[part] = _Folder()
                made.append(inner)
            folder = inner
        folder.files.append((name, b"%o" % git_mode(entry.info.st_mode), entry.oid))
    for folder in reversed(made):  # no recursion: a hostile project may nest thousands deep
        rows = [(name, name, mode, oid) for name, mode, oid in folder.files]
        rows += [(name + b"/", name, _FOLDER_MODE, f.oid) for name, f in folder.folders.items()]
        rows.sort()
        folder.oid = store(b"".join(b"%s %s\0%s" % (m, name, oid) for _k, name, m, oid in rows))
    return root.oid
