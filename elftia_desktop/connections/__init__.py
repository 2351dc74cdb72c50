"""The connection pool over the mcp SDK's stdio, SSE and Streamable HTTP transports."""
