"""McpManager over the mcp SDK (issue: MCP integration). Imported lazily: mcp costs ~0.6 s."""
