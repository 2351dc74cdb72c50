"""Other apps' MCP configs (detect, import, export) and the claude CLI bridge."""
