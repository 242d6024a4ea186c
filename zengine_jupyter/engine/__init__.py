"""The agent: sessions, the turn loop, tools and the gate (issue: Engine core).

Built so far: resume repair and request well-formedness (the Session store issue).
"""

from zengine_jupyter.engine._resume import RESUME_REASON, repair_on_resume, resume_repairs
from zengine_jupyter.engine._wellformed import (
    INTERRUPTED,
    MISSING_START,
    RequestMessage,
    build_request,
    check_request,
)

__all__ = [
    "INTERRUPTED",
    "MISSING_START",
    "RESUME_REASON",
    "RequestMessage",
    "build_request",
    "check_request",
    "repair_on_resume",
    "resume_repairs",
]
