"""Content-Length framed JSON-RPC 2.0 over byte streams (a child's stdio in practice).

Shared by the language-server client; knows nothing about LSP.
"""

from zengine_jupyter.integrations.jsonrpc._connection import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    ByteWriter,
    JsonRpcConnection,
    NotificationHandler,
    RequestHandler,
)
from zengine_jupyter.integrations.jsonrpc._framing import (
    MAX_FRAME_BYTES,
    MAX_HEADER_BYTES,
    encode_frame,
    read_frame,
)
from zengine_jupyter.integrations.jsonrpc._stdio import StdioOptions, StdioPeer, spawn_stdio_peer

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_REQUEST",
    "MAX_FRAME_BYTES",
    "MAX_HEADER_BYTES",
    "METHOD_NOT_FOUND",
    "ByteWriter",
    "JsonRpcConnection",
    "NotificationHandler",
    "RequestHandler",
    "StdioOptions",
    "StdioPeer",
    "encode_frame",
    "read_frame",
    "spawn_stdio_peer",
]
