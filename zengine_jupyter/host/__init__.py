"""What touches the operating system: child processes, installed programs, and later
fingerprints, checkpoints and the sandbox."""

from zengine_jupyter.host._components import (
    COMPONENTS,
    ComponentSpec,
    probe_component,
    probe_components,
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
    "COMPONENTS",
    "SAFE_ENV_NAMES",
    "CompletedRun",
    "ComponentSpec",
    "RunOptions",
    "child_environment",
    "open_process",
    "probe_component",
    "probe_components",
    "run",
]
