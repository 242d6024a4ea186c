"""The OpenAI-compatible chat completions adapter (OpenAI, OpenRouter, Gemini, Ollama, ...)."""

from zengine_jupyter.llm.openai._request import build_body, reasoning_effort
from zengine_jupyter.llm.openai._stream import OpenAIAdapter, stop_reason, usage_from

__all__ = ["OpenAIAdapter", "build_body", "reasoning_effort", "stop_reason", "usage_from"]
