"""zengine as a jupyter-ai 3.x persona (``pip install zengine-jupyter[jupyter-ai]``).

jupyter-ai loads the classes registered under the ``jupyter_ai.personas`` entry point; this one
is an ACP persona of ``jupyter-ai-acp-client`` that starts ``zengine_jupyter.acp.ACP_COMMAND``
(``zengine acp`` with this interpreter) and talks the Agent Client Protocol to it. Only
jupyter-ai imports this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jupyter_ai_acp_client.base_acp_persona import BaseAcpPersona
from jupyter_ai_persona_manager import PersonaDefaults

from zengine_jupyter.acp import ACP_COMMAND

__all__ = ["ZengineAcpPersona"]

AVATAR = Path(__file__).with_name("zengine.svg")


class ZengineAcpPersona(BaseAcpPersona):  # type: ignore[misc]
    """The "zengine" persona in jupyter-ai's chat: our safety machinery behind its chat UI."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, executable=list(ACP_COMMAND), **kwargs)

    @property
    def defaults(self) -> PersonaDefaults:
        return PersonaDefaults(
            name="zengine",
            description="A coding agent with approvals, a sandbox, checkpoints and rewind, "
            "and recorded verification (zengine-jupyter over ACP).",
            avatar_path=str(AVATAR),
            system_prompt="unused",  # zengine builds its own
        )
