"""Built-in MCP servers shipped with the app."""
