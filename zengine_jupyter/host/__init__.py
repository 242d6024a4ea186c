"""What touches the operating system: child processes, installed programs, the sandbox
(``host.sandbox``), and later fingerprints and checkpoints."""

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
    run,
)

__all__ = [
    "COMPONENTS",
    "SAFE_ENV_NAMES",
    "CompletedRun",
    "ComponentSpec",
    "RunOptions",
    "child_environment",
    "probe_component",
    "probe_components",
    "run",
]
