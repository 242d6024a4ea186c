"""The settings every git the engine runs carries, so no configuration it reads runs a program.

Where the engine runs git (today: the checkpoint repository, ``host/checkpoint``; Glob and
Grep list files without git), the repository's configuration may be written by the project or
by a sandboxed command. So every call names its GIT_DIR and work tree (no discovery: an embedded
bare repository or ``sub/.git`` is never picked up), reads no system or global config file, and
overrides with ``-c`` (which beats every config file) each key that makes git start a program:

- ``core.fsmonitor``: run on every index read (the attack of issue 18.1);
- ``core.hooksPath``: hooks (``post-index-change``, ``reference-transaction``, ``pre-auto-gc``...);
- ``core.sshCommand``, ``protocol.allow``: no transport ever starts (ssh, ``ext::``);
- ``core.pager``, ``core.editor``, ``sequence.editor``: git never pages or opens an editor;
- ``credential.helper`` (an empty value resets the list): no credential program;
- ``gpg.program`` with ``commit.gpgSign`` off: nothing signs;
- ``safe.bareRepository=explicit``: a bare repository is used only when named, never found;
- ``submodule.recurse=false``: no command recurses into a submodule's own config.

Left alone, and why: ``diff.external`` and ``GIT_EXTERNAL_DIFF`` act only for porcelain diffs
with ``--ext-diff`` (the engine runs ``diff-tree``, and the variable is not in the process
allowlist); filter and textconv drivers are named by ``.gitattributes`` but defined only in
config, which is the engine's own; ``core.alternateRefsCommand`` and
``uploadpack.packObjectsHook`` run on fetch and push only, which ``protocol.allow=never`` stops
(and an empty value is not "off" for every one of them, so pinning could misfire).

``GIT_OPTIONAL_LOCKS`` and ``core.untrackedCache`` are left to the caller: the checkpoint
repository wants its own index's stat and untracked caches refreshed (it is the engine's file).

``include.path`` cannot be turned off with ``-c``; it needs a config file to include from, and
the only one read is the engine's own repository's (system and global are /dev/null).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["SAFE_GIT_CONFIG", "safe_git_argv", "safe_git_env"]

SAFE_GIT_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.sshCommand", "false"),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("sequence.editor", "false"),
    ("credential.helper", ""),
    ("gpg.program", "false"),
    ("commit.gpgSign", "false"),
    ("protocol.allow", "never"),
    ("safe.bareRepository", "explicit"),
    ("submodule.recurse", "false"),
)
"""``-c`` settings on every engine git call, whatever any config file says."""


def safe_git_env(git_dir: Path, work_tree: Path) -> dict[str, str]:
    """The environment of every engine git call (added on top of the process allowlist)."""
    return {
        "GIT_DIR": str(git_dir),
        "GIT_WORK_TREE": str(work_tree),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_SYSTEM": "/dev/null",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_ATTR_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_PROTOCOL_FROM_USER": "0",
        "GIT_PAGER": "cat",
        "GIT_EDITOR": "false",
        "GIT_SSH_COMMAND": "false",
    }


def safe_git_argv(git: str, *args: str, config: tuple[tuple[str, str], ...] = ()) -> list[str]:
    """``git -c ... <args>``: :data:`SAFE_GIT_CONFIG`, then ``config`` (which must not undo it)."""
    pinned = dict(SAFE_GIT_CONFIG)
    for key, value in config:
        if key in pinned and pinned[key] != value:
            raise ValueError(f"{key}={value} would undo a safety setting of engine git calls")
    argv = [git]
    for key, value in (*SAFE_GIT_CONFIG, *config):
        argv += ["-c", f"{key}={value}"]
    return [*argv, *args]
