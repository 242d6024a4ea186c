"""Just enough of git's config syntax to find ``core.hooksPath`` and ``include`` paths."""

from __future__ import annotations

__all__ = ["hooks_and_includes"]


def _value(raw: str) -> str:
    value = raw.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    for mark in (" #", " ;", "\t#", "\t;"):
        value = value.split(mark, 1)[0]
    return value.strip()


def hooks_and_includes(text: str) -> tuple[str | None, list[str]]:
    """The last ``core.hooksPath`` in ``text`` and every ``include(If).path``, as written."""
    section = ""
    hooks: str | None = None
    includes: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            head, _, rest = line[1:].partition("]")
            section = head.split(None, 1)[0].split(".", 1)[0].lower() if head.strip() else ""
            line = rest.strip()
            if not line:
                continue
        key, eq, value = line.partition("=")
        if not eq:
            continue
        name = key.strip().lower()
        if section == "core" and name == "hookspath":
            hooks = _value(value)
        elif section in ("include", "includeif") and name == "path":
            includes.append(_value(value))
    return hooks, includes
