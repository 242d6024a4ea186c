"""Public home of the fakes and fixtures tests use (and third parties may reuse).

Local servers, temporary projects and port fakes are added here by the parts that need them.
Importing this package never imports pytest or jupyter_client: the helpers that need them
live in submodules (``pytest_plugin``, ``kernel``).
"""

from zengine_jupyter.testing._http import RecordedRequest, RecordingServer
from zengine_jupyter.testing._listeners import Listener
from zengine_jupyter.testing._net import free_port

__all__ = ["Listener", "RecordedRequest", "RecordingServer", "free_port"]
