"""Where Qt meets asyncio: the service loop thread and the McpRouter."""
