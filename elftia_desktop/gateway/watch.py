"""Noticing changes of the config (and the agent) while the gateway runs.

Once a second the scope's signature is computed from the records (re-read only when the config
file changed) and the current scope; when it differs, the gateway tells its clients that the
lists changed. A change that does not touch what is served sends nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from elftia_desktop.gateway.core import Gateway
from elftia_desktop.gateway.scope import Scope

log = logging.getLogger(__name__)

POLL_INTERVAL = 1.0
"""Seconds between two looks at the config file."""


async def watch(
    gateway: Gateway, refresh_scope: Callable[[], Awaitable[Scope]], interval: float = POLL_INTERVAL
) -> None:
    """Run until cancelled: send ``list_changed`` whenever the served set changes."""
    scope = await refresh_scope()
    records = await gateway.service.current_records()
    last = scope.signature(records)
    for record in scope.untrusted(records):
        log.warning(
            "%s is not trusted yet, so it is not served (trust it in the app or: elftia-mcp trust)", record.name
        )
    while True:
        await asyncio.sleep(interval)
        guard = gateway.service.tool_guard
        if guard.held:  # tools accepted with ``elftia-mcp review`` meanwhile are served again
            guard.release(await asyncio.to_thread(guard.outside_accepts))
        try:
            scope = await refresh_scope()
            current = scope.signature(await gateway.service.current_records())
        except Exception as exc:  # a config being rewritten, a corrupt file: keep serving the last good one
            log.warning("the config could not be read: %s", exc)
            continue
        if current != last:
            last = current
            log.info("what is served changed (%s); telling the clients", scope.label)
            await gateway.config_changed()
