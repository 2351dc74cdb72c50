"""Elftia Desktop: a desktop manager for MCP (Model Context Protocol) servers."""

__version__ = "0.1.0"
APP_NAME = "elftia"
