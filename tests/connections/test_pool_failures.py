"""Bad servers: each failure names its cause, and nothing is lost (record stays, state error, others work).

The bad servers are processes (a missing command, ``exit3``, ``hang_init``, a crash, stderr); the good
ones beside them run in memory (``memory_servers``).
"""

from __future__ import annotations

import asyncio
import os

import pytest

from elftia_desktop.application import servers
from elftia_desktop.bridge.errors import to_bridge_error
from elftia_desktop.connections.events import ConnectionStateChanged
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.errors import ServerConnectionError, ServerNotTrusted, ServerStartFailed, ServerTimeout
from elftia_desktop.core.models import ConnectionState, McpServerInput
from tests.connections.pool_helpers import add_server, stdio_input

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180), pytest.mark.usefixtures("memory_servers")]


async def _assert_nothing_lost(service: McpService, bad: str, good: str) -> None:
    assert bad in {r.id for r in await service.list_servers()}
    assert service.connection_state(bad) is ConnectionState.ERROR
    assert service.connection_error(bad)
    response = await service.call_tool(good, "echo", {"text": "still here"})
    assert response.content[0]["text"] == "still here"


async def test_command_not_found_names_the_path(service: McpService) -> None:
    good = await add_server(service, stdio_input("good", "basic"))
    server = McpServerInput(name="ghost", config={"command": "no-such-mcp-server-xyz"}, is_trusted=True)
    added = await servers.add(service, server)
    assert added.success and added.server is not None
    assert "command not found" in (added.message or "")
    bad = added.server.id
    with pytest.raises(
        ServerStartFailed, match=r'command not found: "no-such-mcp-server-xyz" \(not in any of the '
    ) as caught:
        await service.init_client(bad)
    folders = caught.value.details.splitlines()[1:]  # the PATH once, a folder a line, out of the message
    assert folders and len(folders) == len(set(folders)) and all(os.path.isabs(folder) for folder in folders)
    assert not any(folder in str(caught.value) for folder in folders), "the message does not repeat the PATH"
    bridged = to_bridge_error(caught.value)
    assert bridged.details == caught.value.details and bridged.message == str(caught.value)
    await _assert_nothing_lost(service, bad, good)


async def test_exit_code_and_stderr_are_reported(service: McpService) -> None:
    good = await add_server(service, stdio_input("good", "basic"))
    bad = await add_server(service, stdio_input("exits", "exit3", is_active=False))
    with pytest.raises(ServerStartFailed) as caught:
        await service.init_client(bad)
    message = str(caught.value)
    assert "exited with code 3" in message
    assert "fatal: missing API_KEY (exit 3)" in message
    assert "fatal: missing API_KEY (exit 3)" in service.server_log(bad)
    await _assert_nothing_lost(service, bad, good)
    result = await service.test(bad)
    assert result.success is False and "exited with code 3" in (result.error or "")


async def test_hang_in_initialize_times_out(service: McpService) -> None:
    good = await add_server(service, stdio_input("good", "basic"))
    bad = await add_server(
        service, stdio_input("hangs", "hang_init", is_active=False, config={"timeout": {"connect": 2}})
    )
    with pytest.raises(ServerTimeout, match="timed out while starting and initializing after 2 s"):
        await service.init_client(bad)
    await _assert_nothing_lost(service, bad, good)


@pytest.mark.real_process  # its crash ends its process; the pid shows the reconnect
async def test_crash_moves_to_error_and_next_use_reconnects(service: McpService) -> None:
    good = await add_server(service, stdio_input("good", "basic"))
    bad = await add_server(service, stdio_input("crashy", "basic"))
    first_pid = (await service.call_tool(bad, "pid", {})).structured_content
    with pytest.raises(ServerConnectionError) as caught:
        await service.call_tool(bad, "crash", {"code": 9})
    assert not isinstance(caught.value, ServerTimeout)
    for _ in range(200):
        if service.connection_state(bad) is ConnectionState.ERROR:
            break
        await asyncio.sleep(0.05)
    await _assert_nothing_lost(service, bad, good)
    assert "crashing with 9" in service.server_log(bad)
    # The call is not replayed; the next use reconnects to a new process.
    second_pid = (await service.call_tool(bad, "pid", {})).structured_content
    assert second_pid != first_pid
    assert service.connection_state(bad) is ConnectionState.CONNECTED


@pytest.mark.real_process  # the cancellation shows on the process's stderr; the pid shows no restart
async def test_timed_out_call_is_cancelled_and_session_stays_usable(service: McpService) -> None:
    sid = await add_server(service, stdio_input("slowpoke", "basic"))
    pid = (await service.call_tool(sid, "pid", {})).structured_content
    with pytest.raises(ServerTimeout, match="slowpoke"):
        await service.call_tool(sid, "slow", {"seconds": 60}, timeout=1.0)
    for _ in range(200):
        if "slow cancelled" in service.server_log(sid):
            break
        await asyncio.sleep(0.05)
    assert "slow cancelled" in service.server_log(sid)
    assert (await service.call_tool(sid, "pid", {})).structured_content == pid
    assert service.connection_state(sid) is ConnectionState.CONNECTED


async def test_per_server_call_timeout_from_config(service: McpService) -> None:
    sid = await add_server(service, stdio_input("short", "basic", config={"timeout": 1}))
    with pytest.raises(ServerTimeout):
        await service.call_tool(sid, "slow", {"seconds": 30})
    assert (await service.call_tool(sid, "echo", {"text": "ok"})).content[0]["text"] == "ok"


async def test_untrusted_server_is_never_started(service: McpService) -> None:
    added = await servers.add(service, stdio_input("stranger", "basic", trusted=False))
    assert added.success and added.server is not None
    sid = added.server.id
    assert service.connection_state(sid) is ConnectionState.DISCONNECTED
    with pytest.raises(ServerNotTrusted, match=r"elftia-mcp trust stranger\)"):
        await service.init_client(sid)
    assert service.server_log(sid) == []
    trusted = await servers.trust(service, sid)
    assert trusted.success
    assert service.connection_state(sid) is ConnectionState.CONNECTED


async def test_one_failing_server_does_not_hide_the_others(service: McpService) -> None:
    good = await add_server(service, stdio_input("good", "basic"))
    bad = await add_server(service, stdio_input("exits", "exit3"))
    listing = await service.list_all_active_server_tools()
    assert {t.server_id for t in listing.tools} == {good}
    assert "exited with code 3" in listing.errors[bad]


async def test_error_state_events(service: McpService) -> None:
    bad = await add_server(service, stdio_input("exits", "exit3", is_active=False))
    events: list[ConnectionStateChanged] = []
    service.events.on(ConnectionStateChanged, events.append)
    with pytest.raises(ServerStartFailed):
        await service.init_client(bad)
    assert [e.state for e in events] == ["connecting", "error"]
    assert "exited with code 3" in str(events[-1].error)
