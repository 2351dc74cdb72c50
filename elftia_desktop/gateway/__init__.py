"""The gateway: one MCP server (stdio or Streamable HTTP) that serves an agent's servers to other apps.

``elftia-mcp serve`` runs it. Tools and prompts are renamed ``server__name`` (provider-safe),
resources keep their URIs; every request is routed through the pool (``McpService``) of this
process, so servers start on the first request that needs them and stop with the gateway.
"""
