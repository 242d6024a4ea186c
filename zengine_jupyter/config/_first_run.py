"""Is any model set up at all? The cheap answer ``%load_ext`` gives at once (no pydantic, no
settings validation: environment variables, auth.json's hosts and the ``[provider]`` table
of each settings file, read with tomllib).

"Configured" means a request could go somewhere: an API key for the default endpoints
(``ZENGINE_API_KEY``, ``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``, or one in auth.json), an
endpoint (``provider.base_url`` / ``ZENGINE_BASE_URL``), or a recording to replay
(``provider.cassette`` / ``ZENGINE_CASSETTE``, ``kind = "replay"``). A file that does not
parse counts as configured: the chat's own error names it better than a first-run notice.
"""

from __future__ import annotations

import json
import os
import tomllib
from typing import TYPE_CHECKING

from zengine_jupyter.config._paths import data_dir, user_config_dir

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

__all__ = ["DEFAULT_KEY_VARS", "provider_configured"]

DEFAULT_KEY_VARS = ("ZENGINE_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY")
"""The variables a key for the default endpoints (no base URL) comes from."""
_ENDPOINT_VARS = ("ZENGINE_BASE_URL", "ZENGINE_CASSETTE", "ZENGINE_RECORD")


def _file_sets_provider(path: Path) -> bool:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return True
    provider = data.get("provider")
    if not isinstance(provider, dict):  # v1 config.toml: top-level base_url
        return bool(data.get("base_url"))
    return bool(provider.get("base_url") or provider.get("cassette")
                or provider.get("kind") == "replay")  # fmt: skip


def _stored_keys(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return True  # unreadable: the chat's error says so
    return isinstance(data, dict) and bool(data.get("hosts"))


def provider_configured(project_root: Path, environ: Mapping[str, str] | None = None) -> bool:
    """Whether a key, an endpoint or a recording is set anywhere (see the module docstring)."""
    env = os.environ if environ is None else environ
    if any(env.get(name, "").strip() for name in (*DEFAULT_KEY_VARS, *_ENDPOINT_VARS)):
        return True
    if env.get("ZENGINE_PROVIDER", "").strip() == "replay":
        return True
    env_dict = dict(env)
    if _stored_keys(data_dir(env_dict) / "auth.json"):
        return True
    user = user_config_dir(env_dict)
    folder = project_root / ".z-engine"
    files = (user / "settings.toml", user / "config.toml", folder / "settings.toml",
             folder / "settings.local.toml", folder / "config.toml")  # fmt: skip
    return any(_file_sets_provider(path) for path in files)
