"""MCP tools to provider tool definitions (OpenAI, Anthropic, Gemini)."""
