"""Agent-engine adapters: ITool, the registry, MCP tool adapters, completion helper.

Modules:

- ``approval``: The one approval check before a pool server's tool runs (gateway, CLI, Try dialog, engine).
- ``completion``: ``CompletionService``: a chat request with the agent's MCP tools injected, and the model's
  tool calls run.
- ``content``: Turn the content blocks of a tool result into the one string an agent reads.
- ``direct_adapter``: Servers held directly by an agent session: ``DirectMcpToolAdapter`` and
  ``load_direct_mcp_tools``.
- ``mcp_tool_adapter``: ``McpToolAdapter``: a pool server's tool (``MCPTool``) as an ``ITool`` for the agent
  engine.
- ``provider_calls``: Tool calls in each provider's response, and each provider's tool-result message.
- ``registry``: The agent engine's tool registry: tools by name, collisions refused, batches added atomically.
- ``tool``: The agent engine's tool interface (TinyElf's ``ITool``).
"""
