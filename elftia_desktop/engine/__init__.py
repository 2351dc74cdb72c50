"""Agent-engine adapters: ITool, the registry, MCP tool adapters, completion helper."""
