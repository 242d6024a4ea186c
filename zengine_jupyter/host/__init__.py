"""What touches the operating system: child processes, installed programs, the sandbox
(``host.sandbox``), and later fingerprints and checkpoints; hooks run here too (never sandboxed)."""

from zengine_jupyter.host._components import (
    COMPONENTS,
    ComponentSpec,
    probe_component,
    probe_components,
)
from zengine_jupyter.host._hooks import (
    BLOCK_EXIT_CODE,
    HookOutcome,
    HookRun,
    hook_argv,
    hook_matches,
    run_hooks,
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
    "BLOCK_EXIT_CODE",
    "COMPONENTS",
    "SAFE_ENV_NAMES",
    "CompletedRun",
    "ComponentSpec",
    "HookOutcome",
    "HookRun",
    "RunOptions",
    "child_environment",
    "hook_argv",
    "hook_matches",
    "open_process",
    "probe_component",
    "probe_components",
    "run",
    "run_hooks",
]
