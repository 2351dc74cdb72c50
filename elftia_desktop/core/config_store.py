"""The persistent server list: ``{data dir}/mcp-config.json``.

Shape ``{"version": N, "mcpServers": [record, ...]}``; the original Electron app's
``{"mcpServers": [...]}`` and a bare list are read too. The file machinery (locked
read-modify-write, atomic save with ``.bak``, corrupt file moved aside and reported, newer
version refused, invalid entries kept verbatim) is :class:`core.json_store.JsonListStore`.
"""

from __future__ import annotations

from pathlib import Path

from elftia_desktop.core.json_store import JsonListStore, describe_validation_error
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.paths import data_dir

__all__ = ["CONFIG_FILE_NAME", "CONFIG_VERSION", "ConfigStore", "describe_validation_error"]

CONFIG_VERSION = 1
CONFIG_FILE_NAME = "mcp-config.json"


class ConfigStore(JsonListStore[McpServerRecord]):
    """The server records on disk, safe for concurrent writers.

    ``notices`` collects problems found while loading (recovered from ``.bak``, entries kept
    because they no longer validate) for the UI or CLI to show.
    """

    model = McpServerRecord
    list_key = "mcpServers"
    version = CONFIG_VERSION
    entry_label = "Server"

    def __init__(self, path: Path | None = None) -> None:
        super().__init__(path if path is not None else data_dir() / CONFIG_FILE_NAME)

    def records(self) -> list[McpServerRecord]:
        """All records, re-read when another process changed the file."""
        return self._items()

    def get(self, server_id: str) -> McpServerRecord | None:
        """The record with that id, if any."""
        return next((r for r in self.records() if r.id == server_id), None)
