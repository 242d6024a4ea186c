"""The macOS seatbelt profile, compared with a golden text (macOS is not available here)."""

from __future__ import annotations

from pathlib import Path

from zengine_jupyter.host.sandbox import (
    ProtectedPath,
    SandboxProfile,
    build_seatbelt_argv,
    build_seatbelt_profile,
)

P = Path("/Users/u/proj")


def _profile(*, network: bool) -> SandboxProfile:
    return SandboxProfile(
        root=P,
        writable=(
            Path("/private/tmp"),
            P,
            Path("/Users/u/Library/Caches"),
            Path('/Users/u/we"ird'),
        ),
        pinned=(P / ".git",),
        protected=(
            ProtectedPath(P / ".git/hooks", "dir", exists=True),
            ProtectedPath(P / ".git/config", "file", exists=True),
            ProtectedPath(P / ".z-engine", "dir", exists=False),
            ProtectedPath(P / ".mcp.json", "file", exists=False),
        ),
        allow_network=network,
        home=Path("/Users/u"),
        temp_dir=Path("/private/tmp"),
    )


GOLDEN_NETWORK_OFF = """\
(version 1)
(allow default)
(deny file-write*)
(allow file-write*
  (subpath "/private/tmp")
  (require-all (subpath "/Users/u/proj")
    (require-not (literal "/Users/u/proj/.git"))
    (require-not (subpath "/Users/u/proj/.git/hooks"))
    (require-not (literal "/Users/u/proj/.git/config"))
    (require-not (subpath "/Users/u/proj/.z-engine"))
    (require-not (literal "/Users/u/proj/.mcp.json")))
  (subpath "/Users/u/Library/Caches")
  (subpath "/Users/u/we\\"ird")
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/tty")
  (literal "/dev/dtracehelper")
  (literal "/dev/stdout")
  (literal "/dev/stderr")
  (regex #"^/dev/fd/[0-9]+$"))
(deny network*)
(allow network* (local ip "localhost:*"))
(allow network* (remote ip "localhost:*"))
"""


def test_golden_network_off() -> None:
    assert build_seatbelt_profile(_profile(network=False)) == GOLDEN_NETWORK_OFF


def test_network_on_has_no_network_rules() -> None:
    text = build_seatbelt_profile(_profile(network=True))
    assert text == GOLDEN_NETWORK_OFF.split("(deny network*)")[0]


def test_argv() -> None:
    argv = build_seatbelt_argv(_profile(network=False), ["bash", "-c", "make"])
    assert argv == ("/usr/bin/sandbox-exec", "-p", GOLDEN_NETWORK_OFF, "--", "bash", "-c", "make")


def test_network_on_still_denies_container_sockets() -> None:
    from dataclasses import replace

    profile = replace(_profile(network=True), masked=(Path("/private/var/run/docker.sock"),))
    text = build_seatbelt_profile(profile)
    sock = '(path-literal "/private/var/run/docker.sock")'
    assert text.endswith(f"(deny network-outbound (remote unix-socket {sock}))\n")


def test_hidden_folders_are_neither_readable_nor_writable() -> None:
    from dataclasses import replace

    profile = replace(_profile(network=False), hidden=(Path("/Users/u/Library/Jupyter/runtime"),))
    text = build_seatbelt_profile(profile)
    rule = '(deny file-read* file-write* (subpath "/Users/u/Library/Jupyter/runtime"))'
    assert rule in text.splitlines()
    assert text.index(rule) > text.index("(allow file-write*"), "a later rule wins in SBPL"
