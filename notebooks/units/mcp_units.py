"""A tiny MCP server (stdio) for the integrations notebook: unit conversions.

Run by zengine as ``python mcp_units.py`` when the project's settings list it under
``[mcp.servers.units]``. No ``from __future__ import annotations``: the MCP SDK reads the
tool functions' annotations to build their schemas.
"""

from mcp.server.mcpserver import MCPServer

FACTORS = {
    ("mile", "km"): 1.609344,
    ("km", "mile"): 1 / 1.609344,
    ("lb", "kg"): 0.45359237,
    ("kg", "lb"): 1 / 0.45359237,
}

server = MCPServer("units", log_level="WARNING")


@server.tool()
def list_units() -> list[str]:
    """The conversions this server knows, as "from->to"."""
    return [f"{a}->{b}" for a, b in FACTORS]


@server.tool()
def convert(value: float, from_unit: str, to_unit: str) -> float:
    """Convert value from from_unit to to_unit (see list_units)."""
    try:
        return value * FACTORS[(from_unit, to_unit)]
    except KeyError:
        raise ValueError(f"no conversion from {from_unit} to {to_unit}") from None


if __name__ == "__main__":
    server.run("stdio")
