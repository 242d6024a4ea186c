"""What touches the operating system: child processes, installed programs, fingerprints,
ignore rules, hooks (never sandboxed), the one path resolver and the no-follow file IO;
the sandbox and checkpoints are subpackages."""

from zengine_jupyter.host._components import (
    COMPONENTS,
    ComponentSpec,
    probe_component,
    probe_components,
)
from zengine_jupyter.host._fingerprint import (
    ALWAYS_SKIPPED,
    Fingerprint,
    fingerprint_tree,
    fingerprinted_files,
    workspace_fingerprint,
)
from zengine_jupyter.host._git_global import global_excludes_file, global_excludes_text
from zengine_jupyter.host._hooks import (
    BLOCK_EXIT_CODE,
    HookOutcome,
    HookRun,
    hook_argv,
    hook_matches,
    run_hooks,
)
from zengine_jupyter.host._ignore import (
    FolderMatcher,
    IgnoreFile,
    IgnoreRules,
    compile_gitignore,
)
from zengine_jupyter.host._paths import (
    ResolvedPath,
    check_path_text,
    display_path,
    resolve_path,
)
from zengine_jupyter.host._process import (
    SAFE_ENV_NAMES,
    CompletedRun,
    RunOptions,
    child_environment,
    open_process,
    run,
)
from zengine_jupyter.host._safe_fs import Directories, WriteOptions, describe_os_error
from zengine_jupyter.host._search_path import search_path, which

__all__ = [
    "ALWAYS_SKIPPED",
    "BLOCK_EXIT_CODE",
    "COMPONENTS",
    "SAFE_ENV_NAMES",
    "CompletedRun",
    "ComponentSpec",
    "Directories",
    "Fingerprint",
    "FolderMatcher",
    "HookOutcome",
    "HookRun",
    "IgnoreFile",
    "IgnoreRules",
    "ResolvedPath",
    "RunOptions",
    "WriteOptions",
    "check_path_text",
    "child_environment",
    "compile_gitignore",
    "describe_os_error",
    "display_path",
    "fingerprint_tree",
    "fingerprinted_files",
    "global_excludes_file",
    "global_excludes_text",
    "hook_argv",
    "hook_matches",
    "open_process",
    "probe_component",
    "probe_components",
    "resolve_path",
    "run",
    "run_hooks",
    "search_path",
    "which",
    "workspace_fingerprint",
]
