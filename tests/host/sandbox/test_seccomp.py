"""The seccomp program, run through a small classic-BPF interpreter on synthetic syscalls.

Real bubblewrap runs it in test_sandbox_escapes.py; here every branch is checked per machine.
"""

from __future__ import annotations

import errno
import struct

import pytest

from zengine_jupyter.host.sandbox import network_off_program
from zengine_jupyter.host.sandbox._seccomp import (
    ARCHES,
    SECCOMP_RET_ALLOW,
    SECCOMP_RET_ERRNO,
    Insn,
    assemble,
)

EPERM = SECCOMP_RET_ERRNO | errno.EPERM
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_VSOCK = 1, 2, 10, 16, 17, 40
SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET, SOCK_CLOEXEC, SOCK_NONBLOCK = 1, 2, 5, 0o2000000, 0o4000


def run_bpf(program: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    """Evaluate a seccomp classic-BPF program on one ``struct seccomp_data``."""
    padded = (*args, *([0] * (6 - len(args))))
    data = struct.pack("<iIQ6Q", nr, arch, 0, *padded)
    insns = [struct.unpack_from("<HBBI", program, i) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        pc += 1
        if code == 0x20:  # ld [k]
            acc = struct.unpack_from("<I", data, k)[0]
        elif code == 0x54:  # and #k
            acc &= k
        elif code == 0x15:  # jeq
            pc += jt if acc == k else jf
        elif code == 0x35:  # jge
            pc += jt if acc >= k else jf
        elif code == 0x06:  # ret #k
            return int(k)
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_socket_families(machine: str) -> None:
    arch = ARCHES[machine]
    prog = network_off_program(machine)
    for family, expected in [
        (AF_UNIX, EPERM),
        (AF_INET, SECCOMP_RET_ALLOW),
        (AF_INET6, SECCOMP_RET_ALLOW),
        (AF_NETLINK, SECCOMP_RET_ALLOW),
        (AF_PACKET, EPERM),
        (AF_VSOCK, EPERM),
    ]:
        assert run_bpf(prog, arch.socket, arch.audit_arch, (family, SOCK_STREAM)) == expected
    # the high half of the 64-bit argument is ignored by the kernel, and by the filter
    assert run_bpf(prog, arch.socket, arch.audit_arch, ((1 << 32) | AF_UNIX,)) == EPERM


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_socketpair_connected_types_only(machine: str) -> None:
    arch = ARCHES[machine]
    prog = network_off_program(machine)
    for sock_type, expected in [
        (SOCK_STREAM, SECCOMP_RET_ALLOW),
        (SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, SECCOMP_RET_ALLOW),
        (SOCK_SEQPACKET, SECCOMP_RET_ALLOW),
        (SOCK_DGRAM, EPERM),
        (SOCK_DGRAM | SOCK_CLOEXEC, EPERM),
    ]:
        assert run_bpf(prog, arch.socketpair, arch.audit_arch, (AF_UNIX, sock_type)) == expected


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_io_uring_and_foreign_abis_are_refused(machine: str) -> None:
    arch = ARCHES[machine]
    prog = network_off_program(machine)
    for nr in (425, 426, 427):
        assert run_bpf(prog, nr, arch.audit_arch) == EPERM
    assert run_bpf(prog, 0, 0x40000003) == EPERM  # i386
    assert run_bpf(prog, arch.socket, 0x40000028, (AF_INET,)) == EPERM  # 32-bit arm
    assert run_bpf(prog, 0, arch.audit_arch) == SECCOMP_RET_ALLOW  # read()
    assert run_bpf(prog, 42, arch.audit_arch, (AF_UNIX,)) == SECCOMP_RET_ALLOW


def test_x32_syscalls_are_refused_on_x86_64() -> None:
    arch = ARCHES["x86_64"]
    prog = network_off_program("x86_64")
    assert run_bpf(prog, 0x40000000 | 41, arch.audit_arch, (AF_UNIX,)) == EPERM
    assert run_bpf(prog, 0x40000000, arch.audit_arch) == EPERM


def test_unknown_machine_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        network_off_program("riscv64")


def test_assembler_resolves_labels_and_rejects_long_or_backward_jumps() -> None:
    code = assemble([Insn(0x15, 1, jt="end"), Insn(0x06, 0), Insn(0x06, 7, label="end")])
    assert struct.unpack_from("<HBBI", code, 0) == (0x15, 1, 0, 1)
    with pytest.raises(ValueError, match="short forward"):
        assemble([Insn(0x06, 0, label="top"), Insn(0x15, 0, jt="top")])
