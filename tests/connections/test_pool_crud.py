"""CRUD through the service: add_json per-server results, update reconnects, remove disconnects; shell env."""

from __future__ import annotations

import json
import sys

import pytest

from elftia_desktop.application import servers
from elftia_desktop.connections.events import ServersChanged
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.models import ConnectionState, McpServerJsonInput
from tests.connections.pool_helpers import add_server, stdio_input
from tests.servers.serve_http import server_command

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


async def test_add_json_reports_each_server(service: McpService) -> None:
    command = server_command("basic")
    text = json.dumps(
        {
            "mcpServers": {
                "ok": {"command": command[0], "args": command[1:]},
                "broken": {"args": ["no command"]},
                "exits": {"command": sys.executable, "args": server_command("exit3")[1:]},
            }
        }
    )
    changed: list[ServersChanged] = []
    service.events.on(ServersChanged, changed.append)
    result = await servers.add_json(service, McpServerJsonInput(json=text, trust=True))
    assert result.success is False and result.results is not None
    by_name = {(r.server.name if r.server else (r.error or "").split(":")[0]): r for r in result.results}
    assert by_name["ok"].success and by_name["exits"].success
    assert "exited with code 3" in (by_name["exits"].message or "")
    assert by_name["broken"].success is False
    assert by_name["broken"].error == "broken: config.url: a Streamable HTTP server needs a URL"
    assert len(changed) == 2
    ok_id = by_name["ok"].server.id  # type: ignore[union-attr]
    assert service.connection_state(ok_id) is ConnectionState.CONNECTED


@pytest.mark.real_process  # the server's pid shows whether it restarted
async def test_update_reconnects_and_remove_disconnects(service: McpService) -> None:
    sid = await add_server(service, stdio_input("editable", "basic"))
    first = (await service.call_tool(sid, "pid", {})).structured_content
    renamed = await servers.update(service, sid, {"name": "edited"})
    assert renamed.success and renamed.server is not None and renamed.server.id == sid
    assert renamed.server.updated_at is not None
    assert (await service.call_tool(sid, "pid", {})).structured_content == first  # no restart for a rename
    assert all(t.id.startswith("mcp__edited__") for t in await service.list_server_tools(sid))

    changed = await servers.update(service, sid, {"config": {"env": {"MODE": "two"}}})
    assert changed.success and changed.server is not None
    assert not changed.server.is_trusted  # the environment is part of what the user trusted: asked again
    assert (await servers.trust(service, sid)).success
    assert (await service.call_tool(sid, "env", {"name": "MODE"})).content[0]["text"] == "two"
    assert (await service.call_tool(sid, "pid", {})).structured_content != first

    disabled = await servers.update(service, sid, {"isActive": False})
    assert disabled.success and service.connection_state(sid) is ConnectionState.DISCONNECTED

    removed = await servers.remove(service, sid)
    assert removed.success and await service.list_servers() == []
    assert service.connection_state(sid) is ConnectionState.DISCONNECTED
