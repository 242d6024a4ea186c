"""The bubblewrap (``bwrap``) command line for a profile: a pure function, tested on exact argv.

Order matters, each mount covering the ones before it:

1. the whole filesystem read-only, a private ``/dev`` and a ``/proc`` of the sandbox's own pids,
   whose kernel knobs stay read-only (run as root, a command could otherwise set
   ``kernel.core_pattern`` to a program the host kernel then runs, or poke ``sysrq-trigger``);
2. other users' home folders this user could enter, each an empty tmpfs (a shared host's
   0755 homes: one user's agent cannot list or read another's files), made read-only after
   the binds below (that remount does not reach the areas bound inside it);
3. each writable area bound read-write (parents first), over those homes as well;
4. each pinned ``.git`` bound onto itself: a mount point cannot be renamed or removed;
5. each protected path bound read-only over itself; an absent one gets an empty read-only
   tmpfs, so nothing can be created there (writes fail with EISDIR / EROFS); with network on,
   container-engine sockets get ``/dev/null`` over them (connecting is refused); Jupyter's
   runtime folders (kernel connection files, server tokens) are seen empty, and so are the
   engine's own folders (chats, ``auth.json``, checkpoints, user settings): a file of theirs
   reads as ``/dev/null``, an absent one inside a writable area cannot be created;
6. isolation: own pid and IPC namespaces, a new session (no TIOCSTI into the terminal), every
   capability dropped (as root, bwrap otherwise keeps them and ``mount -o remount,rw /`` works),
   and with network off its own network namespace plus the seccomp program of ``_seccomp``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.protocol import SandboxError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from zengine_jupyter.host.sandbox._profile import SandboxProfile

__all__ = ["PROC_READ_ONLY", "build_bwrap_argv"]

PROC_READ_ONLY: tuple[str, ...] = ("/proc/sys", "/proc/sysrq-trigger", "/proc/fs")
"""Kernel interfaces under /proc a root user could write (Docker keeps the same ones read-only)
that bubblewrap's ``--proc`` leaves writable. It covers ``/proc/irq`` and ``/proc/bus`` itself
(and ``/proc/sys`` only when ``access(W_OK)`` says it is writable, which procfs denies even to
root, so it stays here): binding them again cost two more mounts, each re-reading the mount
table (tests/host/sandbox/test_sandbox_inside.py checks all five are read-only inside)."""


def build_bwrap_argv(
    profile: SandboxProfile,
    command: Sequence[str],
    *,
    cwd: Path,
    seccomp_fd: int | None,
    program: str = "bwrap",
) -> tuple[str, ...]:
    """``bwrap ... -- command`` confining ``command`` to ``profile``, starting in ``cwd``.

    ``seccomp_fd`` is the descriptor the child inherits holding the seccomp program; it is
    required when the network is off (fail closed: :class:`SandboxError` without it).
    """
    if not command:
        raise SandboxError("cannot sandbox an empty command")
    if not profile.allow_network and seccomp_fd is None:
        raise SandboxError(
            "network is off but no seccomp program was given to block Unix sockets",
            hint="pass the descriptor holding host.sandbox.network_off_program()",
        )
    argv: list[str] = [program, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for knob in PROC_READ_ONLY:
        argv += ["--ro-bind-try", knob, knob]
    for home in profile.foreign:
        argv += ["--tmpfs", str(home)]  # read-only at the end, once areas inside are bound
    for area in profile.writable:
        argv += ["--bind", str(area), str(area)]
    for pin in profile.pinned:
        argv += ["--bind", str(pin), str(pin)]
    for item in profile.protected:
        path = str(item.path)
        if item.exists:
            argv += ["--ro-bind", path, path]
        else:
            argv += ["--tmpfs", path, "--remount-ro", path]
    for folder in profile.hidden:
        argv += ["--tmpfs", str(folder), "--remount-ro", str(folder)]
    for socket in profile.masked:
        argv += ["--ro-bind", "/dev/null", str(socket)]
    for item in profile.private:
        path = str(item.path)
        if item.exists and item.kind == "file":
            argv += ["--ro-bind", "/dev/null", path]
        elif item.exists or any(item.path.is_relative_to(a) for a in profile.writable):
            argv += ["--tmpfs", path, "--remount-ro", path]
    for home in profile.foreign:  # only that tmpfs: the areas bound inside stay writable
        argv += ["--remount-ro", str(home)]
    argv += [
        "--unshare-pid",
        "--unshare-ipc",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ]
    if not profile.allow_network:
        argv += ["--unshare-net", "--seccomp", str(seccomp_fd)]
    argv += ["--chdir", str(cwd), "--", *command]
    return tuple(argv)
