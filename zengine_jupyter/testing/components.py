"""Skip or fail a test that needs a real program (git, bwrap, node, chromium)."""

from __future__ import annotations

import os
import shutil

import pytest

from zengine_jupyter.host import COMPONENTS

__all__ = ["in_ci", "require_component"]


def in_ci() -> bool:
    """True when running under CI (``CI=true``), where nothing may be skipped for lack of a tool."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def require_component(name: str) -> str:
    """The path of component ``name``; outside CI a missing one skips the test, in CI it fails.

    The skip reason names the command that installs it.
    """
    spec = next((c for c in COMPONENTS if c.name == name), None)
    if spec is None:
        raise KeyError(f"unknown component {name!r}; known: {[c.name for c in COMPONENTS]}")
    path = next((p for p in map(shutil.which, spec.executables) if p), None)
    if path is not None:
        return path
    reason = f"{name} is not installed (needed for {spec.purpose}); install: {spec.install}"
    if in_ci():
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)
