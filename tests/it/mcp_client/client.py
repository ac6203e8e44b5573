"""An MCP client of the official Python SDK (PyPI `mcp`), for tests/it/mcp.rs.

    python3 client.py PROGRAM DIR [SERVER ARGS...] < calls.json

Starts `PROGRAM mcp [SERVER ARGS...]` in DIR over stdio, initializes a session, lists
the tools, makes each call of calls.json ([{"name": ..., "arguments": {...}}]) and
prints one JSON object: the server's name, the tools, and each call's result.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.shared import exceptions

# MCPError in the SDK's 2.x, McpError before.
ProtocolError = getattr(exceptions, "MCPError", None) or getattr(exceptions, "McpError")
from mcp.client.stdio import stdio_client


async def main():
    program, directory, *server_args = sys.argv[1:]
    calls = json.load(sys.stdin)
    params = StdioServerParameters(command=program, args=["mcp", *server_args], cwd=directory)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            listed = await session.list_tools()
            results = []
            for call in calls:
                try:
                    result = await session.call_tool(call["name"], call.get("arguments", {}))
                    results.append(wire(result))
                except ProtocolError as error:
                    results.append({"protocolError": str(error)})
    # As the protocol spells them (camelCase), whatever the SDK names its fields.
    print(json.dumps({"initialize": wire(init), "tools": [wire(tool) for tool in listed.tools], "results": results}))


def wire(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


asyncio.run(main())
