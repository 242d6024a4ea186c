"""Public home of the fakes and fixtures tests use (and third parties may reuse).

Local servers, temporary projects and port fakes are added here by the parts that need them.
Importing this package never imports pytest or jupyter_client: the helpers that need them
live in submodules (``pytest_plugin``, ``kernel``).

Model providers: ``ProviderServer`` (a local HTTP server speaking the Anthropic and
OpenAI-compatible wire formats, with request validation and fault injection), scripted with
``Reply``, ``ScriptedToolCall`` and ``ScriptedUsage``; ``FakeClock`` replaces the retry sleep;
``FakeModelClient`` is the ``ModelClient`` port without HTTP, and ``assert_stream_contract``
checks any client's stream.
"""

from zengine_jupyter.testing._clock import FakeClock
from zengine_jupyter.testing._http import RecordedRequest, RecordingServer
from zengine_jupyter.testing._listeners import Listener
from zengine_jupyter.testing._model_client import (
    FakeModelClient,
    assert_stream_contract,
    reply_events,
)
from zengine_jupyter.testing._net import free_port, unresponsive_port
from zengine_jupyter.testing._provider_script import (
    Reply,
    ScriptedToolCall,
    ScriptedUsage,
    render_anthropic,
    render_openai,
)
from zengine_jupyter.testing._provider_server import ProviderServer, ReceivedRequest
from zengine_jupyter.testing._provider_thread import provider_in_thread

__all__ = [
    "FakeClock",
    "FakeModelClient",
    "Listener",
    "ProviderServer",
    "ReceivedRequest",
    "RecordedRequest",
    "RecordingServer",
    "Reply",
    "ScriptedToolCall",
    "ScriptedUsage",
    "assert_stream_contract",
    "free_port",
    "provider_in_thread",
    "render_anthropic",
    "render_openai",
    "reply_events",
    "unresponsive_port",
]
