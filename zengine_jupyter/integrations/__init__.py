"""Adapters for MCP, language servers and the JSON-RPC core they share."""
