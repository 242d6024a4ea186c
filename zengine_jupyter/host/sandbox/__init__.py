"""The sandbox for the agent's commands: profile, bubblewrap and seatbelt backends, detection and
wrapping (spec: "The sandbox"). Auto-allow, which reads the profile, lives in ``policy``.

How the engine uses it::

    options = SandboxOptions(root=..., temp_dir=..., home=..., enabled=..., allow_network=...,
                             auto_allow=..., additional_directories=..., extra_writable=...)
    backend = await detect_backend() if options.enabled else None   # cached; shows .notice
    plan = plan_shell(options, backend, CommandOrigin.AGENT_BASH, command, cwd)
    # gate: deny / ask rules and plan mode first; then, for a command that would ask,
    # policy.decide_auto_allow(AutoAllowRequest(command, cwd, options.auto_allow, plan.profile));
    # plan.notice set -> show it; the command runs unconfined and the gate asks.
    done = await run_planned(plan, RunOptions(timeout_s=...))
    # streamed (Bash, background shells): `async with open_planned(plan, opts, merge_stderr=True)
    # as proc:` in place of host.open_process; or `with launch(plan) as spec:` around any spawn
    # of spec.argv with pass_fds=spec.pass_fds and spec.env on top of the allowlist.

``CommandOrigin.USER_BANG`` (``!`` commands) and ``CommandOrigin.HOOK`` are never sandboxed.
"""

from zengine_jupyter.host.sandbox._backend import (
    BackendName,
    DetectOptions,
    SandboxBackend,
    clear_backend_cache,
    detect_backend,
)
from zengine_jupyter.host.sandbox._bubblewrap import build_bwrap_argv
from zengine_jupyter.host.sandbox._profile import (
    TOOL_CACHES,
    TOOL_CACHES_MACOS,
    PathKind,
    ProtectedPath,
    SandboxOptions,
    SandboxProfile,
    container_sockets,
    derive_profile,
    engine_folders,
    jupyter_runtime_dirs,
    probe_path,
)
from zengine_jupyter.host.sandbox._seatbelt import (
    SEATBELT_PROGRAM,
    build_seatbelt_argv,
    build_seatbelt_profile,
)
from zengine_jupyter.host.sandbox._seccomp import network_off_program, program_pipe
from zengine_jupyter.host.sandbox._warm import settle as settle_placeholders
from zengine_jupyter.host.sandbox._warm_process import WarmProcess
from zengine_jupyter.host.sandbox._wrap import (
    SANDBOXED_ORIGINS,
    WARM_ORIGINS,
    CommandOrigin,
    CommandPlan,
    Launch,
    launch,
    lost_a_home,
    open_planned,
    plan_command,
    plan_shell,
    run_planned,
)

__all__ = [
    "SANDBOXED_ORIGINS",
    "SEATBELT_PROGRAM",
    "TOOL_CACHES",
    "TOOL_CACHES_MACOS",
    "WARM_ORIGINS",
    "BackendName",
    "CommandOrigin",
    "CommandPlan",
    "DetectOptions",
    "Launch",
    "PathKind",
    "ProtectedPath",
    "SandboxBackend",
    "SandboxOptions",
    "SandboxProfile",
    "WarmProcess",
    "build_bwrap_argv",
    "build_seatbelt_argv",
    "build_seatbelt_profile",
    "clear_backend_cache",
    "container_sockets",
    "derive_profile",
    "detect_backend",
    "engine_folders",
    "jupyter_runtime_dirs",
    "launch",
    "lost_a_home",
    "network_off_program",
    "open_planned",
    "plan_command",
    "plan_shell",
    "probe_path",
    "program_pipe",
    "run_planned",
    "settle_placeholders",
]
