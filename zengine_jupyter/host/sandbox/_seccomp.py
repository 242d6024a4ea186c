"""A seccomp-BPF program that keeps a sandboxed command off every socket outside its own
network namespace; bubblewrap installs it (``--seccomp FD``).

``--unshare-net`` gives the command its own network, but a Unix socket file in a visible path
(docker, dbus, ssh-agent) stays reachable, and AF_VSOCK or io_uring bypass the namespace or the
filter. With network off the program therefore allows ``socket()`` only for AF_INET, AF_INET6 and
AF_NETLINK (all confined to the namespace, where only ``lo`` exists), allows ``socketpair`` for
connected types (asyncio's self-pipe keeps working) but not datagram pairs (a datagram socket can
be re-aimed at any path with ``connect``/``sendto``), and refuses io_uring. A syscall from another
ABI (32-bit, x32) is refused outright: fail closed.

Classic BPF, assembled here (no libseccomp needed); the tests run the program through a small
interpreter and through real bubblewrap.
"""

from __future__ import annotations

import errno
import functools
import os
import struct
from dataclasses import dataclass

__all__ = [
    "ARCHES",
    "SECCOMP_RET_ALLOW",
    "SECCOMP_RET_ERRNO",
    "Insn",
    "SeccompArch",
    "assemble",
    "network_off_program",
    "program_pipe",
]

# struct seccomp_data offsets
_NR, _ARCH, _ARG0_LO, _ARG1_LO = 0, 4, 16, 24

# classic BPF opcodes
LD_W_ABS = 0x20
JEQ_K = 0x15
JGE_K = 0x35
AND_K = 0x54
RET_K = 0x06

SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000

AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
SOCK_DGRAM = 2
SOCK_TYPE_MASK = 0xF
X32_SYSCALL_BIT = 0x40000000


@dataclass(frozen=True)
class SeccompArch:
    """One machine the filter knows: its audit arch and the syscall numbers it needs."""

    machine: str
    audit_arch: int
    socket: int
    socketpair: int
    io_uring: tuple[int, ...] = (425, 426, 427)
    has_x32: bool = False


ARCHES: dict[str, SeccompArch] = {
    "x86_64": SeccompArch("x86_64", 0xC000003E, socket=41, socketpair=53, has_x32=True),
    "aarch64": SeccompArch("aarch64", 0xC00000B7, socket=198, socketpair=199),
}
ARCHES["amd64"] = ARCHES["x86_64"]
ARCHES["arm64"] = ARCHES["aarch64"]


@dataclass(frozen=True)
class Insn:
    """One instruction; jumps name labels, resolved by :func:`assemble`."""

    code: int
    k: int = 0
    jt: str | None = None
    jf: str | None = None
    label: str | None = None


def assemble(program: list[Insn]) -> bytes:
    """``struct sock_filter[]`` bytes (native little-endian); labels become forward offsets."""
    where = {insn.label: i for i, insn in enumerate(program) if insn.label}
    out = bytearray()
    for i, insn in enumerate(program):
        offsets = []
        for target in (insn.jt, insn.jf):
            if target is None:
                offsets.append(0)
                continue
            offset = where[target] - i - 1
            if not 0 <= offset <= 255:
                raise ValueError(f"jump from {i} to {target!r} is not a short forward jump")
            offsets.append(offset)
        out += struct.pack("<HBBI", insn.code, offsets[0], offsets[1], insn.k)
    return bytes(out)


@functools.cache
def network_off_program(machine: str, *, refuse_errno: int = errno.EPERM) -> bytes:
    """The filter for ``machine`` (``platform.machine()``); KeyError if it is not supported.

    Pure and immutable (bytes), so it is assembled once per process and argument."""
    arch = ARCHES[machine]
    deny = SECCOMP_RET_ERRNO | refuse_errno
    prog = [
        Insn(LD_W_ABS, _ARCH),
        Insn(JEQ_K, arch.audit_arch, jf="deny"),
        Insn(LD_W_ABS, _NR),
    ]
    if arch.has_x32:
        prog.append(Insn(JGE_K, X32_SYSCALL_BIT, jt="deny"))
    prog += [
        Insn(JEQ_K, arch.socket, jt="socket"),
        Insn(JEQ_K, arch.socketpair, jt="socketpair"),
        *(Insn(JEQ_K, nr, jt="deny") for nr in arch.io_uring),
        Insn(RET_K, SECCOMP_RET_ALLOW, label="allow"),
        # socket(domain, ...): only the families confined by the network namespace
        Insn(LD_W_ABS, _ARG0_LO, label="socket"),
        Insn(JEQ_K, AF_INET, jt="allow2"),
        Insn(JEQ_K, AF_INET6, jt="allow2"),
        Insn(JEQ_K, AF_NETLINK, jt="allow2"),
        Insn(RET_K, deny),
        Insn(RET_K, SECCOMP_RET_ALLOW, label="allow2"),
        # socketpair(domain, type, ...): connected pairs only
        Insn(LD_W_ABS, _ARG1_LO, label="socketpair"),
        Insn(AND_K, SOCK_TYPE_MASK),
        Insn(JEQ_K, SOCK_DGRAM, jt="deny"),
        Insn(RET_K, SECCOMP_RET_ALLOW),
        Insn(RET_K, deny, label="deny"),
    ]
    return assemble(prog)


def program_pipe(program: bytes) -> int:
    """A pipe's read end holding ``program`` (closed for writing), for ``--seccomp FD``.

    The caller passes it to the child and closes it after the spawn.
    """
    read, write = os.pipe()
    try:
        os.write(write, program)  # a few hundred bytes: always fits the pipe buffer
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)
    return read
