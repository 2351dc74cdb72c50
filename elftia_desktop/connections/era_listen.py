"""List changes from a modern server: ``subscriptions/listen`` (2026-07-28 servers send no unasked notifications).

One listen stream per connection, opened once connected, asks for tool, prompt and resource list
changes; each event reaches the same hooks a handshake-era ``list_changed`` notification does. A
lost stream is opened again (the client refetches what it depends on: the hooks invalidate the
caches), a refusal is logged once and the connection goes on without it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass

import anyio
from mcp.client.subscriptions import (
    PromptsListChanged,
    ResourcesListChanged,
    ServerEvent,
    SubscriptionLost,
    ToolsListChanged,
    listen,
)
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import event_to_notification

from elftia_desktop.connections.era_client import EraSession

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ListenHooks:
    """What a connection is told while it listens."""

    on_tools_changed: Callable[[], None]
    """The tool list changed (or may have: a lost stream replays nothing)."""
    on_list_changed: Callable[[str], None]
    """The ``prompts`` or ``resources`` list changed."""
    add_line: Callable[[str], None]
    """A line for the server's log."""
    on_listening: Callable[[], None] = lambda: None
    """The stream is acknowledged, or it is clear it will not be (the connection may report ready)."""


ACK_TIMEOUT = 10.0
"""Seconds the server has to acknowledge the listen request."""
RELISTEN_DELAY = 1.0
"""Seconds before a lost stream is opened again."""
MAX_RELISTENS = 5
"""A stream lost this many times in a row is given up (logged)."""


async def listen_for_changes(session: EraSession, hooks: ListenHooks) -> None:
    """Listen until cancelled (the connection closing), calling the hooks on each change.

    ``hooks.on_listening`` is called once the server acknowledged the stream, or once it is clear it will not
    (refused, given up): the connection is reported ready only then, so no change right after is missed.
    """
    try:
        await _listen_all(session, hooks)
    finally:
        hooks.on_listening()


async def _listen_all(session: EraSession, hooks: ListenHooks) -> None:
    lost = 0
    while lost < MAX_RELISTENS:
        try:
            await _listen_once(session, hooks)
            return  # the server closed the stream gracefully: it has nothing more to tell
        except SubscriptionLost as exc:
            lost += 1
            log.info("listen stream lost (%s); opening it again", exc)
            hooks.on_tools_changed()  # no replay: whatever changed meanwhile must be fetched again
            await anyio.sleep(RELISTEN_DELAY)
        except (MCPError, TimeoutError, RuntimeError) as exc:
            hooks.add_line(f"[protocol] the server refused subscriptions/listen: {exc}; list changes are not pushed")
            return
    hooks.add_line(f"[protocol] subscriptions/listen was lost {MAX_RELISTENS} times; list changes are not pushed")


async def _listen_once(session: EraSession, hooks: ListenHooks) -> None:
    scope = anyio.CancelScope(deadline=anyio.current_time() + ACK_TIMEOUT)
    with scope:

        async def evict(event: ServerEvent) -> None:  # before the hooks refetch: never a stale cached list
            """Drop the cached list the event says changed."""
            await session.evict(event_to_notification(event, {}))

        async with listen(
            session, tools_list_changed=True, prompts_list_changed=True, resources_list_changed=True, on_event=evict
        ) as events:
            scope.deadline = math.inf  # acknowledged: the stream stays open as long as the connection
            honored = events.honored
            wanted = (
                ("tools", honored.tools_list_changed),
                ("prompts", honored.prompts_list_changed),
                ("resources", honored.resources_list_changed),
            )
            hooks.add_line(f"[protocol] listening for list changes: {', '.join(k for k, on in wanted if on) or 'none'}")
            hooks.on_listening()
            async for event in events:
                if isinstance(event, ToolsListChanged):
                    hooks.on_tools_changed()
                elif isinstance(event, PromptsListChanged):
                    hooks.on_list_changed("prompts")
                elif isinstance(event, ResourcesListChanged):
                    hooks.on_list_changed("resources")
    if scope.cancelled_caught:
        raise TimeoutError(f"no acknowledgment within {ACK_TIMEOUT:g} s")
