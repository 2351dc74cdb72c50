"""Server channels: the records, their connections, trust, logs and states."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from elftia_desktop.bridge.plumbing import Done, Failed, RouterCore

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices


class ServerChannels(RouterCore):
    """``mcp:list``, ``mcp:add`` … ``mcp:states``: what the servers page needs."""

    def list_servers(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:list``: every server record."""
        return self._submit("mcp:list", lambda s: s.mcp.list_servers(), on_done, on_error)

    def add(
        self, params: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None, connect: bool = True
    ) -> int:
        """``mcp:add``: params in the ``McpServerInput`` shape; ``connect=False`` saves without connecting."""
        server, refused = self._validated("mcp:add", "McpServerInput", params, on_error)
        if server is None:
            return refused
        return self._submit("mcp:add", lambda s: s.mcp.add(server, connect=connect), on_done, on_error)

    def add_json(self, params: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:addJson``: ``{json, trust, onConflict}``."""
        data, refused = self._validated("mcp:addJson", "McpServerJsonInput", params, on_error)
        if data is None:
            return refused
        return self._submit("mcp:addJson", lambda s: s.mcp.add_json(data), on_done, on_error)

    def remove(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:remove``."""
        return self._by_id("mcp:remove", server_id, lambda s, i: s.mcp.remove(i), on_done, on_error)

    def update(
        self,
        server_id: str,
        updates: dict[str, Any],
        on_done: Done | None = None,
        on_error: Failed | None = None,
        connect: bool = True,
    ) -> int:
        """``mcp:update``: merge ``updates`` into the record (``connect=False``: a changed server is not restarted)."""
        data, refused = self._validated(
            "mcp:update", "McpServerUpdateInput", {"id": server_id, "updates": updates}, on_error
        )
        if data is None:
            return refused
        update = data
        return self._submit("mcp:update", lambda s: s.mcp.update(update.id, update.updates, connect), on_done, on_error)

    def test(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:test``: connect and list tools (signing in in place when an OAuth server asks)."""
        return self._by_id(
            "mcp:test", server_id, lambda s, i: s.mcp.signed_in(i, lambda: s.mcp.test(i)), on_done, on_error
        )

    def test_config(
        self,
        params: dict[str, Any],
        server_id: str | None = None,
        on_done: Done | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:test-config``: try an unsaved server (``McpServerInput`` shape) without saving it.

        ``server_id``: the saved server being edited, so its stored secrets resolve.
        """
        server, refused = self._validated("mcp:test-config", "McpServerInput", params, on_error)
        if server is None:
            return refused
        return self._submit(
            "mcp:test-config", lambda s: s.mcp.test_config(server, server_id, sign_in=True), on_done, on_error
        )

    def discover(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:discover``: tools, prompts, resources (signing in in place when an OAuth server asks)."""
        return self._by_id(
            "mcp:discover", server_id, lambda s, i: s.mcp.signed_in(i, lambda: s.mcp.discover(i)), on_done, on_error
        )

    def trust(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:trust``: the user confirmed what the server runs."""
        return self._by_id("mcp:trust", server_id, lambda s, i: s.mcp.trust(i), on_done, on_error)

    def launch_info(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:launch-info``: what the server runs, for the trust dialog.

        Result: ``{name, transport, rows: [[label, value]], changes: [[field, confirmed, now]],
        needsConfirmation}``; secret values are never included.
        """

        async def work(s: AppServices, i: str) -> dict[str, Any]:
            from elftia_desktop.core.trust import describe_launch, launch_changes, needs_confirmation

            record = await asyncio.to_thread(s.catalog.get, i)
            return {
                "name": record.name,
                "transport": record.type.value,
                "rows": [list(row) for row in describe_launch(record)],
                "changes": [list(c) for c in launch_changes(record)] if record.trusted_launch else [],
                "needsConfirmation": needs_confirmation(record),
            }

        return self._by_id("mcp:launch-info", server_id, work, on_done, on_error)

    def reconnect(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:reconnect``."""
        return self._by_id("mcp:reconnect", server_id, lambda s, i: s.mcp.reconnect(i), on_done, on_error)

    def server_log(self, server_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:logs``: the server's recent log lines."""

        async def work(s: AppServices, i: str) -> list[str]:
            return s.mcp.server_log(i)

        return self._by_id("mcp:logs", server_id, work, on_done, on_error)

    def states(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:states``: ``{serverId: (state, error)}`` for every server."""

        async def work(s: AppServices) -> dict[str, tuple[str, str]]:
            records = await s.mcp.list_servers()
            return {r.id: (str(s.mcp.connection_state(r.id)), s.mcp.connection_error(r.id) or "") for r in records}

        return self._submit("mcp:states", work, on_done, on_error)

    def read_json_file(self, path: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:read-json-file``: a JSON file's text, decoded as UTF-8 and bounded in size.

        Fails with a ``JsonInputError`` naming the byte offset of undecodable bytes, or why the
        file cannot be read. The text is parsed by the caller (the paste-JSON preview).
        """

        async def work(_s: AppServices) -> str:
            from pathlib import Path

            from elftia_desktop.core.json_input import decode_json_bytes, read_bytes

            data = await asyncio.to_thread(read_bytes, Path(path), path)
            return decode_json_bytes(data, Path(path).name)

        return self._submit("mcp:read-json-file", work, on_done, on_error)
