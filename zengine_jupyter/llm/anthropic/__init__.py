"""The Anthropic Messages API adapter (streaming, prompt caching, extended thinking)."""

from zengine_jupyter.llm.anthropic._request import THINKING_BUDGETS, build_body, thinking_config
from zengine_jupyter.llm.anthropic._stream import API_VERSION, AnthropicAdapter, stop_reason

__all__ = [
    "API_VERSION",
    "THINKING_BUDGETS",
    "AnthropicAdapter",
    "build_body",
    "stop_reason",
    "thinking_config",
]
