"""``%%agent --vars``: ``{name}`` in the cell becomes that kernel variable's capped description.

Only with the flag; without it the cell is sent exactly as written. The description is the
one the kernel's own tool gives (:func:`._namespace.describe_namespace`: type, length, shape,
dtypes, a DataFrame's first rows; no user code runs), cut at :data:`VAR_CAP` characters.
A name the namespace does not hold is left as written and reported; ``{{name}}`` sends a
literal ``{name}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["VARS_HELP", "VAR_CAP", "Substitution", "substitute"]

VAR_CAP = 4_000
"""Characters one variable's description may take at most."""
VARS_HELP = (
    "replace {name} in the cell by a short description of kernel variable `name` (type, "
    "length, shape, dtypes, a DataFrame's first rows; no code runs; at most "
    f"{VAR_CAP} characters each). Without --vars the cell is sent as written. Names the "
    "kernel does not hold stay as written and are reported; {{name}} sends a literal {name}."
)
_PATTERN = re.compile(r"\{\{([A-Za-z_]\w*)\}\}|\{([A-Za-z_]\w*)\}")


@dataclass(frozen=True)
class Substitution:
    """The text to send and what was replaced in it."""

    text: str
    replaced: tuple[str, ...]
    unknown: tuple[str, ...]

    def report(self) -> str:
        """One line for the widget and the cell: what was replaced, what was left."""
        parts = []
        if self.replaced:
            parts.append("replaced " + ", ".join(f"{{{n}}}" for n in self.replaced))
        if self.unknown:
            parts.append("left as written (not defined in the kernel): " +
                         ", ".join(f"{{{n}}}" for n in self.unknown))  # fmt: skip
        return "; ".join(parts) or "no {name} to replace"


def substitute(text: str, namespace: Mapping[str, Any]) -> Substitution:
    """Replace each ``{name}`` the namespace holds by its capped description."""
    from zengine_jupyter.kernel._namespace import describe_namespace

    replaced: dict[str, None] = {}
    unknown: dict[str, None] = {}

    def one(match: re.Match[str]) -> str:
        literal, name = match.group(1), match.group(2)
        if literal is not None:
            return "{" + literal + "}"
        if name not in namespace:
            unknown[name] = None
            return match.group(0)
        replaced[name] = None
        description = describe_namespace(namespace, [name], values=True)
        if len(description) > VAR_CAP:
            description = description[:VAR_CAP] + f" ... (cut at {VAR_CAP} characters)"
        return description

    sent = _PATTERN.sub(one, text)
    return Substitution(sent, tuple(replaced), tuple(unknown))
