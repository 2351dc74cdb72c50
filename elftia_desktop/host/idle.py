"""The daemon's idle stop, per server: a server nobody used for the idle time stops; the others stay warm.

A use of a server is a call on it from any client (its start and its end: ``Callers.last_call``)
and every request that reaches it through the pool: a list, a test, discover, a prompt or a
resource (the pool notes the time of each in ``PoolEntry.last_used``). A server with a call in
flight, or followed by a client (``logs --follow``), is never idle, and one that is still
starting is not stopped. A stopped server starts again on its next use. The window's host has
no idle stop.
"""

from __future__ import annotations

import asyncio
import logging

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.models import ConnectionState
from elftia_desktop.host.links import Callers

log = logging.getLogger(__name__)


class ServerIdle:
    """How long each server of the pool has gone unused, and the stop of those unused too long.

    Times are read from the callers' clock (``Callers(clock)``, ``time.monotonic`` unless a test
    passes one it advances; the pool's ``last_used`` is ``time.monotonic``, so such a clock starts there).
    """

    def __init__(self, service: McpService, callers: Callers) -> None:
        self._service = service
        self._callers = callers
        self._clock = callers.clock
        """The callers' clock: the times of calls and of idleness are read from the same counter."""
        self._since = self._clock()
        """When the host started: a server never used since counts from then (not from the machine's start)."""

    def idle_seconds(self, server_id: str) -> float:
        """Seconds since the server's last use (0 while a call runs on it or a client follows it)."""
        if self._callers.busy(server_id):
            return 0.0
        entry = self._service.pool.entries.get(server_id)
        last = max(
            self._since, self._callers.last_call.get(server_id, 0.0), entry.last_used if entry is not None else 0.0
        )
        return max(0.0, self._clock() - last)

    async def stop_idle(self, limit: float) -> None:
        """Stop every running server unused for ``limit`` seconds or more."""
        servers = list(self._service.pool.entries)
        await asyncio.gather(*(self._stop_if_idle(server_id, limit) for server_id in servers))

    async def _stop_if_idle(self, server_id: str, limit: float) -> None:
        """Checked right before the stop: a call that came meanwhile keeps the server."""
        if self._service.connection_state(server_id) is not ConnectionState.CONNECTED:
            return
        idle = self.idle_seconds(server_id)
        if idle < limit:
            return
        record = self._service.cached_record(server_id)
        name = record.name if record is not None else server_id
        log.info("%s unused for %.0f s: stopping it (it starts again on its next use)", name, idle)
        await self._service.disconnect(server_id)
