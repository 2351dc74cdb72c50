"""The router's routes: one plain object per feature, held by ``bridge/router.py``'s ``McpRouter``."""
