"""What touches the operating system: child processes, installed programs, and later
fingerprints, checkpoints and the sandbox."""

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
from zengine_jupyter.host._ignore import (
    FolderMatcher,
    IgnoreFile,
    IgnoreRules,
    compile_gitignore,
)
from zengine_jupyter.host._process import (
    SAFE_ENV_NAMES,
    CompletedRun,
    RunOptions,
    child_environment,
    open_process,
    run,
)

__all__ = [
    "ALWAYS_SKIPPED",
    "COMPONENTS",
    "SAFE_ENV_NAMES",
    "CompletedRun",
    "ComponentSpec",
    "Fingerprint",
    "FolderMatcher",
    "IgnoreFile",
    "IgnoreRules",
    "RunOptions",
    "child_environment",
    "compile_gitignore",
    "fingerprint_tree",
    "fingerprinted_files",
    "open_process",
    "probe_component",
    "probe_components",
    "run",
    "workspace_fingerprint",
]
