"""A plan-mode answer as an ACP plan: its top-level list items, each a pending entry.

Plan mode reads and answers with a plan in text; ACP clients draw a plan (``session/update``
``plan``) as a checklist. The top-level items of the answer's first list (numbered or
bulleted, nested items folded into their parent) become the entries, so the client's
checklist shows the same steps the text does. An answer with no list sends no plan.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from acp.helpers import plan_entry, update_plan

if TYPE_CHECKING:
    from acp.schema import AgentPlanUpdate

__all__ = ["MAX_ENTRIES", "plan_update"]

MAX_ENTRIES = 50
_ITEM = re.compile(r"^(?P<indent>[ \t]*)(?:\d{1,3}[.)]|[-*+])[ \t]+(?P<text>\S.*)$")
_EMPHASIS = re.compile(r"(\*\*|__|`)")


def plan_update(text: str) -> AgentPlanUpdate | None:
    """The plan in ``text``, or None when it has no list."""
    entries: list[str] = []
    top: int | None = None
    for line in text.splitlines():
        match = _ITEM.match(line)
        if match is None:
            if entries and line.strip() and not line.startswith((" ", "\t")):
                break  # the list ended: a paragraph after it is not a step
            continue
        indent = len(match["indent"].expandtabs(4))
        if top is None:
            top = indent
        if indent <= top:
            entries.append(_EMPHASIS.sub("", match["text"]).strip())
    if not entries:
        return None
    return update_plan(plan_entry(entry) for entry in entries[:MAX_ENTRIES])
