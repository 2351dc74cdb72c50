"""What ``elftia-mcp daemon status`` shows of a host: itself, its clients, its servers and their processes."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from elftia_desktop.connections.process_tracker import ProcessTracker
from elftia_desktop.core.models import ConnectionState
from elftia_desktop.platform import endpoint

if TYPE_CHECKING:
    from elftia_desktop.core.models import McpServerRecord
    from elftia_desktop.host.host import Host

RUNNING = (ConnectionState.CONNECTED, ConnectionState.CONNECTING)
FAILED = (ConnectionState.ERROR, ConnectionState.AUTH_REQUIRED)


async def describe(host: Host, records: list[McpServerRecord]) -> dict[str, Any]:
    """The status of ``host`` as JSON; ``records`` are the data folder's servers.

    Servers are listed only while they run or start (with the seconds since their last use), failed
    ones apart; a server that never started is in neither list.
    """
    states = {r.id: host.service.connection_state(r.id) for r in records}
    servers = [
        {"id": r.id, "name": r.name, "state": states[r.id].value, "unusedSeconds": _unused(host, r.id)}
        for r in records
        if states[r.id] in RUNNING
    ]
    failed = [{"id": r.id, "name": r.name, "state": states[r.id].value} for r in records if states[r.id] in FAILED]
    tracker = ProcessTracker.for_dir(host.service.runtime_dir)
    names = {r.id: r.name for r in records}
    return {
        "pid": os.getpid(),
        "hostedBy": host.kind,
        "dataDir": str(host.location.data_dir),
        "socket": endpoint.describe(host.address),
        "startedAt": host.started,
        "idleSeconds": host.idle,
        "stays": host.stay,
        "clients": [c.to_json(names) for c in host.clients()],
        "servers": servers,
        "failedServers": failed,
        "processes": tracker.pids(),
        "callsRunning": host.callers.running,
    }


def _unused(host: Host, server_id: str) -> float:
    return round(host.server_idle.idle_seconds(server_id), 1)
