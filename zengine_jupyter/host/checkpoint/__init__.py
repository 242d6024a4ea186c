"""Checkpoints: snapshots of a project's files in a shadow git repository, and restore.

The user's repository, index and git configuration are never written: every git call
names the shadow GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE and isolates configuration.
"""

from zengine_jupyter.host.checkpoint._git import (
    CHECKPOINT_REF,
    ISOLATION_CONFIG,
    ShadowPaths,
    git_argv,
    git_env,
    project_key,
)
from zengine_jupyter.host.checkpoint._restore import restore_code
from zengine_jupyter.host.checkpoint._retention import (
    Retention,
    collect_garbage,
    format_size,
    needs_collection,
    repository_size,
)
from zengine_jupyter.host.checkpoint._scan import MAX_FILE_BYTES, MAX_FILES
from zengine_jupyter.host.checkpoint._shadow import ShadowRepository, unsafe_root_reason

__all__ = [
    "CHECKPOINT_REF",
    "ISOLATION_CONFIG",
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "Retention",
    "ShadowPaths",
    "ShadowRepository",
    "collect_garbage",
    "format_size",
    "git_argv",
    "git_env",
    "needs_collection",
    "project_key",
    "repository_size",
    "restore_code",
    "unsafe_root_reason",
]
