"""Pure builders of the git command lines and environment the shadow repository uses.

Every call names the shadow GIT_DIR, the project as GIT_WORK_TREE and the shadow's own
GIT_INDEX_FILE, and shuts out configuration that is not ours: no system or global config
file, no hooks, no fsmonitor, fixed line-ending and file-mode handling, literal pathspecs.
So the user's repository, index and git configuration are never read for writing nor changed.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "CHECKPOINT_REF",
    "FIRST_SNAPSHOT_CONFIG",
    "ISOLATION_CONFIG",
    "ShadowPaths",
    "git_argv",
    "git_env",
    "project_key",
]

CHECKPOINT_REF = "refs/zengine/checkpoints"
"""Every snapshot of a project is chained on this one ref."""

ISOLATION_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.hooksPath", "/dev/null"),
    ("core.autocrlf", "false"),
    ("core.safecrlf", "false"),
    ("core.eol", "lf"),
    ("core.filemode", "true"),
    ("core.symlinks", "true"),
    ("core.ignorecase", "false"),
    ("core.fsmonitor", "false"),
    ("core.untrackedCache", "true"),
    ("core.quotePath", "false"),
    ("core.sparseCheckout", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("commit.gpgSign", "false"),
    ("advice.detachedHead", "false"),
    ("submodule.recurse", "false"),
    ("protocol.allow", "never"),
)
"""``-c`` settings on every call, whatever the shadow repository's own config says."""

FIRST_SNAPSHOT_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.bigFileThreshold", "1"),
    ("core.compression", "1"),
)
"""For the first, full snapshot: stream objects into one pack with light compression
instead of writing one loose file per object (several times faster on big projects)."""


@dataclass(frozen=True)
class ShadowPaths:
    """Where one project's shadow repository lives."""

    git_dir: Path
    work_tree: Path

    @property
    def index_file(self) -> Path:
        return self.git_dir / "zengine-index"

    @property
    def exclude_file(self) -> Path:
        return self.git_dir / "zengine-exclude"

    @property
    def lock_file(self) -> Path:
        return self.git_dir / "zengine.lock"


def project_key(root: Path) -> str:
    """A folder name for ``root``'s shadow repository: readable, and unique per path."""
    digest = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", root.name)[:40] or "root"
    return f"{name}-{digest}"


def git_env(paths: ShadowPaths) -> dict[str, str]:
    """Environment for every shadow git call (added on top of the process allowlist)."""
    return {
        "GIT_DIR": str(paths.git_dir),
        "GIT_WORK_TREE": str(paths.work_tree),
        "GIT_INDEX_FILE": str(paths.index_file),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_SYSTEM": "/dev/null",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_LITERAL_PATHSPECS": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_AUTHOR_NAME": "zengine",
        "GIT_AUTHOR_EMAIL": "checkpoints@zengine.invalid",
        "GIT_COMMITTER_NAME": "zengine",
        "GIT_COMMITTER_EMAIL": "checkpoints@zengine.invalid",
        "LC_ALL": "C",
    }


def git_argv(
    paths: ShadowPaths,
    *args: str,
    extra_config: tuple[tuple[str, str], ...] = (),
    git: str = "git",
) -> list[str]:
    """``git -c ... <args>`` with the isolation settings and our exclude file."""
    argv = [git]
    config = (*ISOLATION_CONFIG, ("core.excludesFile", str(paths.exclude_file)), *extra_config)
    for key, value in config:
        argv += ["-c", f"{key}={value}"]
    argv += args
    return argv
