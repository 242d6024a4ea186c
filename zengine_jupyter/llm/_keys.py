"""API keys: where they come from, where they are kept, and how they stay out of sight.

Order (spec): ``ZENGINE_API_KEY``, then the provider's own variable for the host
(``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``, ...), then ``auth.json`` in the data folder
(mode 0600, one key per host, written atomically). A key belongs to one host: the client
built for a base URL only ever sends the key resolved for that URL's host.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from zengine_jupyter.config import data_dir, private_dir, tighten
from zengine_jupyter.protocol import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "PROVIDER_KEY_VARS",
    "ZENGINE_KEY_VAR",
    "AuthStore",
    "ResolvedKey",
    "Secret",
    "host_of",
    "is_local_host",
    "provider_key_var",
    "resolve_key",
]

ZENGINE_KEY_VAR = "ZENGINE_API_KEY"

PROVIDER_KEY_VARS: tuple[tuple[str, str], ...] = (
    ("anthropic.com", "ANTHROPIC_API_KEY"),
    ("openai.com", "OPENAI_API_KEY"),
    ("openrouter.ai", "OPENROUTER_API_KEY"),
    ("generativelanguage.googleapis.com", "GEMINI_API_KEY"),
    ("deepseek.com", "DEEPSEEK_API_KEY"),
    ("mistral.ai", "MISTRAL_API_KEY"),
    ("groq.com", "GROQ_API_KEY"),
    ("x.ai", "XAI_API_KEY"),
    ("together.xyz", "TOGETHER_API_KEY"),
    ("moonshot.ai", "MOONSHOT_API_KEY"),
)
"""Host suffix -> the provider's own environment variable."""


class Secret:
    """A string that never shows itself: ``repr``/``str`` are masked; ``reveal()`` to use it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('********')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        return hmac.compare_digest(self._value.encode(), other._value.encode())

    def __hash__(self) -> int:
        return hash(("Secret", len(self._value)))

    def __reduce__(self) -> str:
        raise TypeError("a Secret cannot be pickled")


@dataclass(frozen=True)
class ResolvedKey:
    host: str
    source: str
    """Where it came from: a variable name or ``auth.json`` (safe to show)."""
    secret: Secret


def host_of(url_or_host: str) -> str:
    """The lower-case host name of a URL or of ``host[:port]`` (no port, no user info)."""
    text = url_or_host.strip()
    if "://" not in text:
        text = f"//{text}"
    try:
        host = urlsplit(text).hostname
    except ValueError:
        host = None
    if not host:
        raise ConfigError(
            f"{url_or_host!r} has no host name",
            hint="give a host such as api.openai.com, or a URL such as https://api.openai.com/v1",
        )
    return host.lower()


def is_local_host(host: str) -> bool:
    """A server on this machine (no key needed): localhost, 127.0.0.0/8, ::1."""
    return host in ("localhost", "::1") or host.startswith("127.") or host.endswith(".localhost")


def provider_key_var(host: str) -> str | None:
    for suffix, var in PROVIDER_KEY_VARS:
        if host == suffix or host.endswith(f".{suffix}"):
            return var
    return None


class AuthStore:
    """``auth.json``: ``{"version": 1, "hosts": {HOST: {"api_key": KEY}}}``, mode 0600."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else data_dir() / "auth.json"

    def _read(self) -> dict[str, dict[str, str]]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise ConfigError(
                f"{self.path} is not readable JSON ({type(exc).__name__})",
                hint=f"fix or delete {self.path}, then run: zengine auth login HOST",
            ) from None
        tighten(self.path)  # a copy or an editor may have left the keys readable by others
        hosts = raw.get("hosts") if isinstance(raw, dict) else None
        if not isinstance(hosts, dict):
            return {}
        return {
            str(h): {"api_key": str(v["api_key"])}
            for h, v in hosts.items()
            if isinstance(v, dict) and isinstance(v.get("api_key"), str)
        }

    def hosts(self) -> list[str]:
        return sorted(self._read())

    def get(self, host: str) -> Secret | None:
        entry = self._read().get(host_of(host))
        return Secret(entry["api_key"]) if entry else None

    def set(self, host: str, key: Secret) -> None:
        """Store ``key`` for ``host``, replacing the file atomically with mode 0600."""
        hosts = self._read()
        hosts[host_of(host)] = {"api_key": key.reveal()}
        self._write({"version": 1, "hosts": hosts})

    def remove(self, host: str) -> bool:
        hosts = self._read()
        if hosts.pop(host_of(host), None) is None:
            return False
        self._write({"version": 1, "hosts": hosts})
        return True

    def _write(self, data: dict[str, object]) -> None:
        private_dir(self.path.parent)
        fd, name = tempfile.mkstemp(
            prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent
        )
        tmp = Path(name)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=2, sort_keys=True)
                fh.flush()
                os.fsync(fh.fileno())
            tmp.replace(self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            raise


def resolve_key(
    host: str, environ: Mapping[str, str] | None = None, store: AuthStore | None = None
) -> ResolvedKey | None:
    """The key for ``host``: ``ZENGINE_API_KEY``, the provider's variable, then auth.json."""
    env = os.environ if environ is None else environ
    value = env.get(ZENGINE_KEY_VAR, "").strip()
    if value:
        return ResolvedKey(host, ZENGINE_KEY_VAR, Secret(value))
    var = provider_key_var(host)
    if var and env.get(var, "").strip():
        return ResolvedKey(host, var, Secret(env[var].strip()))
    stored = (store or AuthStore()).get(host)
    if stored is not None:
        return ResolvedKey(host, "auth.json", stored)
    return None
