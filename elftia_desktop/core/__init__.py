"""Pure-Python core: data model, config store, secrets, presets. No Qt, no MCP SDK."""
