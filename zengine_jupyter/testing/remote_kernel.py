"""A "remote" kernel for tests: another Unix user, another working directory, no shared files.

``OtherUserProvisioner`` is a jupyter_client kernel provisioner (the interface Enterprise
Gateway's process proxies and other remote launchers implement) that starts the kernel the way
a remote launcher does: as the Unix user it is configured with (``setpriv``), in that user's
folder, with that user's own environment (``HOME``, no variable of the server's but the ones a
gateway forwards: ``KERNEL_*`` and ``JPY_SESSION_NAME``), and with its own copy of the
connection file (the server's runtime folder is not the kernel's). The server reaches it over
its ZeroMQ ports on 127.0.0.1, as it would a kernel on another machine.

It is registered test-privately: :func:`install_remote_kernel` writes a kernel spec naming it
(``metadata.kernel_provisioner``) into a folder for ``JUPYTER_PATH`` and a ``.dist-info`` with
its entry point into a folder for ``PYTHONPATH``; nothing is installed in the environment.
:func:`unix_user` creates the user (and removes it, with its home, afterwards).
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupyter_client.provisioning.local_provisioner import LocalProvisioner
from traitlets import Dict, Unicode

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "PROVISIONER",
    "OtherUserProvisioner",
    "install_remote_kernel",
    "kernel_python",
    "run_as",
    "unix_user",
]

PROVISIONER = "zengine-test-other-user"
"""The entry point name the kernel spec's ``metadata.kernel_provisioner`` names."""

_FORWARDED = ("JPY_SESSION_NAME",)
"""The server's variables a gateway forwards (besides ``KERNEL_*``), e.g. ``allowed_envs``."""


class OtherUserProvisioner(LocalProvisioner):
    """Launch the kernel as ``user`` in ``cwd`` with ``env`` (its own environment)."""

    user = Unicode(config=True, help="The Unix user the kernel runs as.")
    cwd = Unicode(config=True, help="The kernel's working directory (the user's folder).")
    env = Dict(config=True, help="Variables of the kernel's own environment.")

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> Any:
        account = pwd.getpwnam(self.user)
        server_env: dict[str, str] = dict(kwargs.get("env") or {})
        own = self._private_connection_file(account)
        cmd = [own if part == self.connection_file else part for part in cmd]
        kwargs["env"] = {
            "HOME": account.pw_dir,
            "USER": account.pw_name,
            "LOGNAME": account.pw_name,
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            **{k: v for k, v in server_env.items() if k.startswith("KERNEL_") or k in _FORWARDED},
            **self.env,
        }
        kwargs["cwd"] = self.cwd or account.pw_dir
        as_user = ["setpriv", f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}",
                   "--init-groups", "--"]  # fmt: skip
        return await super().launch_kernel([*as_user, *cmd], **kwargs)

    def _private_connection_file(self, account: pwd.struct_passwd) -> str:
        """A copy of the connection file in the user's runtime folder, readable by them only."""
        folder = Path(account.pw_dir) / ".local" / "share" / "jupyter" / "runtime"
        run_as(account.pw_name, ["mkdir", "-p", "-m", "700", str(folder)])
        target = folder / Path(self.connection_file).name
        target.write_bytes(Path(self.connection_file).read_bytes())
        os.chown(target, account.pw_uid, account.pw_gid)
        target.chmod(0o600)
        return str(target)

    @property
    def connection_file(self) -> str:
        return str(self.parent.connection_file) if self.parent else ""


def run_as(user: str, argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` as ``user`` (setpriv, with the user's groups); raises on failure."""
    account = pwd.getpwnam(user)
    prefix = ["setpriv", f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}",
              "--init-groups", "--"]  # fmt: skip
    kwargs.setdefault("env", {"HOME": account.pw_dir, "PATH": "/usr/local/bin:/usr/bin:/bin"})
    kwargs.setdefault("cwd", account.pw_dir)
    return subprocess.run([*prefix, *argv], check=True, capture_output=True, text=True,
                          timeout=kwargs.pop("timeout", 120), **kwargs)  # fmt: skip


@contextlib.contextmanager
def unix_user(prefix: str = "zk") -> Iterator[pwd.struct_passwd]:
    """A new Unix user with a private (0700) home; removed with its home afterwards."""
    name = f"{prefix}{secrets.token_hex(3)}"
    subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", name], check=True,
                   capture_output=True, timeout=60)  # fmt: skip
    try:
        account = pwd.getpwnam(name)
        Path(account.pw_dir).chmod(0o700)
        yield account
    finally:
        for _ in range(20):  # the kernel may take a moment to go after its server
            done = subprocess.run(["userdel", "--remove", name], capture_output=True, timeout=60)
            if done.returncode in (0, 6):  # 6: no such user (already gone)
                break
            time.sleep(0.5)


def kernel_python(user: str, code_root: Path, folder: Path) -> str:
    """A Python ``user`` can run that imports this environment's packages and ``code_root``.

    This interpreter when the user can run it; else (a Python under a private home, e.g.
    pyenv's under /root) a virtual environment in ``folder`` from the system's Python of the
    same version, with a ``.pth`` pointing at this environment's site-packages."""
    probe = ["-c", "import ipykernel, zengine_jupyter"]
    env = {"HOME": "/", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(code_root)}
    with contextlib.suppress(subprocess.CalledProcessError, PermissionError):
        run_as(user, [sys.executable, *probe], env=env, cwd="/")
        return sys.executable
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    system = shutil.which(version, path="/usr/local/bin:/usr/bin:/bin")
    if system is None:
        raise RuntimeError(f"{user} cannot run {sys.executable} and there is no system {version}")
    subprocess.run([system, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    import site

    site_dir = folder / "lib" / version / "site-packages"
    (site_dir / "zengine-host.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    python = str(folder / "bin" / "python")
    run_as(user, [python, *probe], env=env, cwd="/")
    return python


def install_remote_kernel(
    jupyter_path: Path,
    python_path: Path,
    *,
    name: str,
    python: str,
    user: str,
    cwd: Path,
    env: dict[str, str],
) -> None:
    """Write kernel spec ``name`` (run by :class:`OtherUserProvisioner`) under ``jupyter_path``
    and the provisioner's entry point under ``python_path`` (a private ``.dist-info``)."""
    spec = jupyter_path / "kernels" / name
    spec.mkdir(parents=True, exist_ok=True)
    config = {"user": user, "cwd": str(cwd), "env": env}
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": f"Python 3 (as {user})",
        "language": "python",
        "metadata": {"kernel_provisioner": {"provisioner_name": PROVISIONER, "config": config}},
    }))  # fmt: skip
    dist = python_path / "zengine_test_remote_kernel-0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: zengine-test-remote-kernel\nVersion: 0\n"
    )
    (dist / "entry_points.txt").write_text(
        f"[jupyter_client.kernel_provisioners]\n{PROVISIONER} = {__name__}:OtherUserProvisioner\n"
    )
