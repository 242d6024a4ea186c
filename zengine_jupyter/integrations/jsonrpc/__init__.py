"""Content-Length framed JSON-RPC over stdio (issue: Language servers)."""
