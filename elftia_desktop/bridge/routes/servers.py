"""Server channels: the records, their connections, trust, logs and states."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from elftia_desktop.application import servers as actions
from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.plumbing import Route
from elftia_desktop.bridge.results import LaunchChange, LaunchInfo

if TYPE_CHECKING:
    from elftia_desktop.bridge.results_explore import Discovery
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.models import (
        McpActionResult,
        McpServerInput,
        McpServerRecord,
        McpTestResult,
    )
    from elftia_desktop.core.server_update import McpServerUpdate

ServerStates = dict[str, tuple[str, str]]
"""Server id -> (connection state, error text or "")."""


class ServerRoute(Route):
    """``mcp:list``, ``mcp:add`` … ``mcp:states``: what the servers page needs."""

    def records(self) -> Pending[list[McpServerRecord]]:
        """``mcp:list``: every server record."""
        return self._core.submit("mcp:list", lambda s: s.mcp.list_servers())

    def add(self, server: McpServerInput, *, connect: bool = True) -> Pending[McpActionResult]:
        """``mcp:add``: save ``server`` (checked when it was built); ``connect=False`` saves without connecting."""
        data = server.model_copy(deep=True)  # the service loop's own copy
        return self._core.submit("mcp:add", lambda s: actions.add(s.mcp, data, connect=connect))

    def add_json(self, json_text: str, trust: bool = False, on_conflict: str = "fail") -> Pending[McpActionResult]:
        """``mcp:addJson``: servers from pasted JSON; ``on_conflict`` is rename, skip, replace or fail."""
        from elftia_desktop.core.models import McpServerJsonInput

        params = {"json": json_text, "trust": trust, "onConflict": on_conflict}
        return self._core.call("mcp:addJson", McpServerJsonInput, params, lambda s, data: actions.add_json(s.mcp, data))

    def remove(self, server_id: str) -> Pending[McpActionResult]:
        """``mcp:remove``."""
        return self._by_id("mcp:remove", server_id, lambda s, i: actions.remove(s.mcp, i))

    def update(self, server_id: str, change: McpServerUpdate, *, connect: bool = True) -> Pending[McpActionResult]:
        """``mcp:update``: set the fields ``change`` gives on the record (the record is checked whole).

        ``connect=False``: a server whose launch changed is stopped, not restarted (the caller connects it).
        """
        from elftia_desktop.core.models import McpServerUpdateInput

        channel = "mcp:update"
        params = {"id": server_id, "updates": change.to_updates()}
        return self._core.call(
            channel, McpServerUpdateInput, params, lambda s, u: actions.update(s.mcp, u.id, u.updates, connect=connect)
        )

    def test(self, server_id: str) -> Pending[McpTestResult]:
        """``mcp:test``: connect and list tools (signing in in place when an OAuth server asks)."""
        return self._by_id("mcp:test", server_id, lambda s, i: s.mcp.signed_in(i, lambda: s.mcp.test(i)))

    def test_config(self, server: McpServerInput, server_id: str | None = None) -> Pending[McpTestResult]:
        """``mcp:test-config``: try an unsaved server without saving it.

        ``server_id``: the saved server being edited, so its stored secrets resolve.
        """
        data = server.model_copy(deep=True)  # the service loop's own copy
        return self._core.submit("mcp:test-config", lambda s: s.mcp.test_config(data, server_id, sign_in=True))

    def discover(self, server_id: str) -> Pending[Discovery]:
        """``mcp:discover``: tools, prompts, resources (signing in in place when an OAuth server asks)."""
        return self._by_id("mcp:discover", server_id, _discover)

    def trust(self, server_id: str) -> Pending[McpActionResult]:
        """``mcp:trust``: the user confirmed what the server runs."""
        return self._by_id("mcp:trust", server_id, lambda s, i: actions.trust(s.mcp, i))

    def launch_info(self, server_id: str) -> Pending[LaunchInfo]:
        """``mcp:launch-info``: what the server runs, for the trust dialog; secret values are never included."""
        return self._by_id("mcp:launch-info", server_id, _launch_info)

    def reconnect(self, server_id: str) -> Pending[None]:
        """``mcp:reconnect``."""
        return self._by_id("mcp:reconnect", server_id, lambda s, i: s.mcp.reconnect(i))

    def log(self, server_id: str) -> Pending[list[str]]:
        """``mcp:logs``: the server's recent log lines."""

        async def work(s: AppServices, i: str) -> list[str]:
            """``mcp:logs`` on the service loop."""
            return s.mcp.server_log(i)

        return self._by_id("mcp:logs", server_id, work)

    def states(self) -> Pending[ServerStates]:
        """``mcp:states``: ``{serverId: (state, why it failed without the server's name)}`` for every server."""

        def reason(s: AppServices, server_id: str) -> str:
            """Why the server's connection failed, without its name ("" when it did not)."""
            failure = s.mcp.connection_failure(server_id)
            return failure.reason if failure is not None else ""

        async def work(s: AppServices) -> ServerStates:
            """``mcp:states`` on the service loop."""
            records = await s.mcp.list_servers()
            return {r.id: (str(s.mcp.connection_state(r.id)), reason(s, r.id)) for r in records}

        return self._core.submit("mcp:states", work)

    def read_json_file(self, path: str) -> Pending[str]:
        """``mcp:read-json-file``: a JSON file's text, decoded as UTF-8 and bounded in size.

        Fails with a ``JsonInputError`` naming the byte offset of undecodable bytes, or why the
        file cannot be read. The text is parsed by the caller (the paste-JSON preview).
        """

        async def work(_s: AppServices) -> str:
            """``mcp:read-json-file`` on the service loop."""
            from pathlib import Path

            from elftia_desktop.core.json_input import decode_json_bytes, read_bytes

            data = await asyncio.to_thread(read_bytes, Path(path), path)
            return decode_json_bytes(data, Path(path).name)

        return self._core.submit("mcp:read-json-file", work)


async def _discover(s: AppServices, server_id: str) -> Discovery:
    from elftia_desktop.bridge.explore_views import discovery

    return discovery(await s.mcp.signed_in(server_id, lambda: s.mcp.discover(server_id)))


async def _launch_info(s: AppServices, server_id: str) -> LaunchInfo:
    from elftia_desktop.core.trust import describe_launch, launch_changes, needs_confirmation

    record = await asyncio.to_thread(s.catalog.get, server_id)
    changes = launch_changes(record) if record.trusted_launch else []
    return LaunchInfo(
        server_id=record.id,
        name=record.name,
        transport=record.type.value,
        rows=[(str(label), str(value)) for label, value in describe_launch(record)],
        changes=[LaunchChange(str(field), _shown(before), _shown(now)) for field, before, now in changes],
        needs_confirmation=needs_confirmation(record),
    )


def _shown(value: object) -> str:
    """A confirmed or current launch value as the trust dialog shows it (an env variable not set: ``(unset)``)."""
    return "(unset)" if value is None else str(value)
