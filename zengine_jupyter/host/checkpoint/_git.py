"""Pure builders of the git command lines and environment the shadow repository uses.

Every call names the shadow GIT_DIR, the project as GIT_WORK_TREE and the shadow's own
GIT_INDEX_FILE, and shuts out configuration that is not ours: the settings every engine git
call carries (``host/_git_safe.py``: no system or global config file, no hooks, no fsmonitor,
no program of any kind), fixed line-ending and file-mode handling, literal pathspecs.
So the user's repository, index and git configuration are never read for writing nor changed.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zengine_jupyter.host._git_safe import SAFE_GIT_CONFIG, safe_git_argv, safe_git_env

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "CHECKPOINT_REF",
    "ISOLATION_CONFIG",
    "ShadowPaths",
    "git_argv",
    "git_env",
    "project_key",
]

CHECKPOINT_REF = "refs/zengine/checkpoints"
"""Every snapshot of a project is chained on this one ref."""

_SHADOW_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.autocrlf", "false"),
    ("core.safecrlf", "false"),
    ("core.eol", "lf"),
    ("core.filemode", "true"),
    ("core.symlinks", "true"),
    ("core.ignorecase", "false"),
    ("core.untrackedCache", "true"),
    ("core.quotePath", "false"),
    ("core.sparseCheckout", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("advice.detachedHead", "false"),
)

ISOLATION_CONFIG: tuple[tuple[str, str], ...] = (*SAFE_GIT_CONFIG, *_SHADOW_CONFIG)
"""``-c`` settings on every call, whatever the shadow repository's own config says."""


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
        **safe_git_env(paths.git_dir, paths.work_tree),
        "GIT_INDEX_FILE": str(paths.index_file),
        "GIT_LITERAL_PATHSPECS": "1",
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
    excludes = ("core.excludesFile", str(paths.exclude_file))
    return safe_git_argv(git, *args, config=(*_SHADOW_CONFIG, excludes, *extra_config))
