"""The router's channels, one module per feature, joined in ``bridge/router.py``."""
