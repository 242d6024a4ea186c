"""Public home of the fakes and fixtures tests use (and third parties may reuse).

Local servers, temporary projects and port fakes are added here by the parts that need them.
Importing this package never imports pytest or jupyter_client: the helpers that need them
live in submodules (``pytest_plugin``, ``kernel``).

Model providers: ``ProviderServer`` (a local HTTP server speaking the Anthropic and
OpenAI-compatible wire formats, with request validation and fault injection), scripted with
``Reply``, ``ScriptedToolCall`` and ``ScriptedUsage``; ``FakeClock`` replaces the retry sleep;
``FakeModelClient`` is the ``ModelClient`` port without HTTP, and ``assert_stream_contract``
checks any client's stream.

Shared test helpers: ``write_provider_settings`` / ``provider_settings`` point the user's
settings at a provider fake and ``configured_provider`` starts one so (``DEFAULT_MODEL`` is
the one spelling of the model id);
``run_cli`` / ``run_cli_sync`` run the installed ``zengine`` command; ``RecordingApprovals`` is
the approval port that answers from a table and remembers what it was asked;
``running_processes`` finds live processes by a token in their command line,
``process_gone`` tells whether a pid has exited and been reaped, ``stop_process_group``
stops a server started in its own session, ``python_child`` runs a Python child that holds
something while the test looks.
"""

from zengine_jupyter.testing._approvals import RecordingApprovals
from zengine_jupyter.testing._clock import FakeClock
from zengine_jupyter.testing._http import RecordedRequest, RecordingServer
from zengine_jupyter.testing._listeners import Listener
from zengine_jupyter.testing._model_client import (
    FakeModelClient,
    assert_stream_contract,
    reply_events,
)
from zengine_jupyter.testing._net import free_port, unresponsive_port
from zengine_jupyter.testing._procs import (
    process_gone,
    python_child,
    running_processes,
    stop_process_group,
)
from zengine_jupyter.testing._provider_script import (
    Reply,
    ScriptedToolCall,
    ScriptedUsage,
    render_anthropic,
    render_openai,
)
from zengine_jupyter.testing._provider_server import ProviderServer, ReceivedRequest
from zengine_jupyter.testing._provider_thread import provider_in_thread
from zengine_jupyter.testing._settings import (
    DEFAULT_MODEL,
    configured_provider,
    provider_settings,
    write_provider_settings,
)
from zengine_jupyter.testing.cli import ZENGINE, run_cli, run_cli_sync

__all__ = [
    "DEFAULT_MODEL",
    "ZENGINE",
    "FakeClock",
    "FakeModelClient",
    "Listener",
    "ProviderServer",
    "ReceivedRequest",
    "RecordedRequest",
    "RecordingApprovals",
    "RecordingServer",
    "Reply",
    "ScriptedToolCall",
    "ScriptedUsage",
    "assert_stream_contract",
    "configured_provider",
    "free_port",
    "process_gone",
    "provider_in_thread",
    "provider_settings",
    "python_child",
    "render_anthropic",
    "render_openai",
    "reply_events",
    "run_cli",
    "run_cli_sync",
    "running_processes",
    "stop_process_group",
    "unresponsive_port",
    "write_provider_settings",
]
