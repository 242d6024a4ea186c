"""Where zengine keeps things: the data folder, user settings, and the project root."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from zengine_jupyter.protocol import ConfigError

__all__ = [
    "HOME_ENV",
    "data_dir",
    "find_project_root",
    "notebook_path",
    "user_config_dir",
]

HOME_ENV = "ZENGINE_HOME"
"""Set this to put every file zengine writes (sessions, checkpoints, trust) in one folder."""

_APP = "zengine"


def data_dir(environ: os._Environ[str] | dict[str, str] | None = None) -> Path:
    """The data folder: ``$ZENGINE_HOME`` if set, else the platform's user data folder.

    The folder is not created here; writers create what they need.
    """
    env = os.environ if environ is None else environ
    override = env.get(HOME_ENV, "").strip()
    if override:
        path = Path(override).expanduser()
        if not path.is_absolute():
            raise ConfigError(
                f"{HOME_ENV}={override!r} is not an absolute path",
                hint=f"set {HOME_ENV} to an absolute folder, or unset it",
            )
        return path
    return Path(platformdirs.user_data_dir(_APP, appauthor=False))


def user_config_dir(environ: os._Environ[str] | dict[str, str] | None = None) -> Path:
    """Where the user's ``settings.toml`` lives.

    With ``$ZENGINE_HOME`` set it is that folder too, so a test or a portable
    install keeps everything in one place.
    """
    env = os.environ if environ is None else environ
    if env.get(HOME_ENV, "").strip():
        return data_dir(env)
    return Path(platformdirs.user_config_dir(_APP, appauthor=False))


def notebook_path(environ: os._Environ[str] | dict[str, str] | None = None) -> Path | None:
    """The notebook a kernel serves, from ``JPY_SESSION_NAME`` (jupyter_server 2.x).

    Absent under nbclient/papermill or a plain console: then ``None``.
    """
    env = os.environ if environ is None else environ
    raw = env.get("JPY_SESSION_NAME", "").strip()
    if not raw:
        return None
    path = Path(raw)
    return path if path.is_absolute() else None


def find_project_root(start: Path) -> Path:
    """The project a folder belongs to: the nearest enclosing git work tree, else the folder.

    Looks for a ``.git`` entry (folder, or file for worktrees and submodules)
    without running git, so it costs a few ``stat`` calls.
    """
    start = start.resolve()
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        # os.path: False where Path.exists (3.11) raises PermissionError (another user's folder)
        if os.path.exists(candidate / ".git"):  # noqa: PTH110
            return candidate
    return folder
