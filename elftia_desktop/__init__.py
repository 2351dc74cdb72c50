"""Elftia Desktop: a desktop manager for MCP (Model Context Protocol) servers."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("elftia-desktop")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

APP_NAME = "elftia"
