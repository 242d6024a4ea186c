"""What a newcomer is told to do when no model answers: every way to connect one, in one place
(the no-key error, a recording with no answer for a new message)."""

from __future__ import annotations

__all__ = ["CONNECT_WAYS", "NEW_MESSAGE_NOT_RECORDED", "no_key_hint"]

CONNECT_WAYS = (
    "open the setup view (`%zengine setup` in a notebook, or Setup in the zengine panel); "
    "or set ANTHROPIC_API_KEY or OPENAI_API_KEY before starting Jupyter; "
    "or start a local server (Ollama on localhost:11434, LM Studio on localhost:1234) and set "
    "ZENGINE_BASE_URL to it; or try it offline: each notebook in notebooks/ replays a recording"
)
"""The ways to connect a model, for a hint."""

NEW_MESSAGE_NOT_RECORDED = (
    "this notebook's recording has no answer for a new message: connect a model to chat live"
)
"""A replayed notebook got a message its cassette does not hold."""


def no_key_hint(host: str, key_var: str | None) -> str:
    """The hint of the no-key error for ``host`` (``key_var``: its provider's variable)."""
    variables = "ZENGINE_API_KEY" + (f" or {key_var}" if key_var else "")
    return (
        f"to connect a model, {CONNECT_WAYS}. For {host}: set {variables}, "
        f"or store a key with `zengine auth login {host}`"
    )
