"""Following the files another process changed (``elftia-mcp add/remove/disable``, another window).

:class:`FileStamps` tells which of the config, agents and settings files changed since it last
looked (a ``stat`` each: the stores write with an atomic rename, so the stamp has the inode in it).
:func:`follow_servers` brings a running service in line with a config changed outside it: a server
that is gone or switched off stops, and subscribers hear ``ServersChanged``. :func:`follow_settings`
puts settings saved elsewhere in force.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from elftia_desktop.core.trust import needs_confirmation

if TYPE_CHECKING:
    from elftia_desktop.application.services import Services
    from elftia_desktop.connections.service import McpService

Kind = Literal["servers", "agents", "settings"]
Stamp = tuple[int, int, int] | None


def _stamp(path: Path) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class FileStamps:
    """The stamps of the three files as last seen; :meth:`changed` names the files that changed since."""

    def __init__(self, services: Services) -> None:
        self.paths: dict[Kind, Path] = {
            "servers": services.catalog.store.path,
            "agents": services.agents.path,
            "settings": services.settings_store.path,
        }
        """Each file, by what it holds."""
        self._seen: dict[Kind, Stamp] = {kind: _stamp(path) for kind, path in self.paths.items()}

    def changed(self) -> list[Kind]:
        """The files whose stamp differs from the one last seen (and remember the new ones)."""
        kinds: list[Kind] = []
        for kind, path in self.paths.items():
            stamp = _stamp(path)
            if stamp != self._seen[kind]:
                self._seen[kind] = stamp
                kinds.append(kind)
        return kinds

    def seen(self, kind: Kind) -> None:
        """This process wrote the file itself (and has told its subscribers): take its stamp as seen."""
        self._seen[kind] = _stamp(self.paths[kind])


async def follow_servers(mcp: McpService) -> None:
    """Stop the servers removed or switched off (or no longer trusted) outside; then ``ServersChanged``."""
    records = await mcp.current_records()
    by_id = {record.id: record for record in records}
    for server_id in list(mcp.pool.entries):
        record = by_id.get(server_id)
        if record is None:
            await mcp.edits.removing(server_id)
            mcp.pool.entries.pop(server_id, None)
            mcp.tool_cache.invalidate(server_id)
        elif not record.is_active or needs_confirmation(record):
            await mcp.disconnect(server_id)
    mcp.notify_servers_changed()


async def follow_settings(services: Services) -> None:
    """Put the settings saved by another process in force (read in a worker thread)."""
    services.apply_settings(await asyncio.to_thread(services.settings_store.load))
