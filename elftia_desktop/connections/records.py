"""The server records as the service reads them: the config store's snapshot, indexed by id.

There is one cache of the records, the store's own snapshot with its one stat stamp
(:meth:`JsonListStore.current_items`): while the file is unchanged, reading the records costs a
``stat``; when it changed (another process, or this one) it is re-read in a worker thread.
"""

from __future__ import annotations

import asyncio

from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.models import McpServerRecord


class ServerRecords:
    """The records of a catalog, by id, as of the config file's last change."""

    def __init__(self, catalog: ServerCatalog) -> None:
        self.catalog = catalog
        self._source: list[McpServerRecord] | None = None
        self._by_id: dict[str, McpServerRecord] = {}

    async def current(self) -> dict[str, McpServerRecord]:
        """The records by id in file order; the file is re-read (in a worker thread) only when it changed."""
        items = self.catalog.store.current_items()
        if items is None:
            read = await asyncio.to_thread(self.catalog.all)
            items = self.catalog.store.current_items()
            if items is None:  # changed again meanwhile: what was just read will do
                items = read
        if items is not self._source:
            # Copies: whoever gets a record may change it; the store's snapshot stays as read.
            self._by_id = {r.id: r.model_copy(deep=True) for r in items}
            self._source = items
        return self._by_id

    async def get(self, server_id: str) -> McpServerRecord:
        """The record of ``server_id``; ``ServerNotFound`` when there is none."""
        record = (await self.current()).get(server_id)
        return record if record is not None else await asyncio.to_thread(self.catalog.get, server_id)

    def unchanged(self) -> dict[str, McpServerRecord] | None:
        """The records by id as :meth:`current` last gave them, while the file has not changed since (sync: a
        ``stat``); None when it changed or was never read."""
        items = self.catalog.store.current_items()
        return self._by_id if items is not None and items is self._source else None

    def cached(self, server_id: str) -> McpServerRecord | None:
        """The record as last read, without touching the file (sync; for messages)."""
        return self._by_id.get(server_id)
