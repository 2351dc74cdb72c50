"""Issue 10: the service honours the Settings page: default timeouts, log size, connect at start.

Real ``basic`` and ``hang_init`` test servers over stdio.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from elftia_desktop.application import servers
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.errors import ServerTimeout
from elftia_desktop.core.models import ConnectionState
from elftia_desktop.core.settings_store import AppSettings, SettingsStore
from tests.connections.pool_helpers import add_server, stdio_input
from tests.helpers.cli_runner import run_cli
from tests.servers.serve_http import server_command

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180), pytest.mark.usefixtures("memory_servers")]


async def test_default_call_timeout_applies_unless_the_server_sets_its_own(service: McpService) -> None:
    service.set_defaults(connect_timeout=30, call_timeout=1, log_lines=500)
    plain = await add_server(service, stdio_input("plain", "basic"))
    with pytest.raises(ServerTimeout, match="timed out in the tool call"):  # 20 s would pass under 120 s
        await service.call_tool(plain, "slow", {"seconds": 20})
    own = await add_server(service, stdio_input("own", "basic", config={"timeout": {"call": 30}}))
    answer = await service.call_tool(own, "slow", {"seconds": 2})
    assert answer.content == [{"type": "text", "text": "slept 2.0"}]


async def test_default_connect_timeout_bounds_a_hanging_start(service: McpService) -> None:
    service.set_defaults(connect_timeout=2, call_timeout=120, log_lines=500)
    sid = await add_server(service, stdio_input("hangs", "hang_init", is_active=False))
    with pytest.raises(ServerTimeout, match="after 2 s"):
        await service.init_client(sid)


@pytest.mark.real_process
async def test_log_size_applies_to_new_and_running_servers(service: McpService) -> None:
    sid = await add_server(service, stdio_input("talker", "basic"))
    for i in range(30):
        await service.call_tool(sid, "stderr", {"line": f"line {i}"})
    await _until(lambda: "line 29" in service.server_log(sid)[-1:][0] if service.server_log(sid) else False)
    assert len(service.server_log(sid)) >= 30
    service.set_defaults(connect_timeout=30, call_timeout=120, log_lines=50)
    for i in range(30, 90):
        await service.call_tool(sid, "stderr", {"line": f"line {i}"})
    await _until(lambda: service.server_log(sid)[-1] == "line 89")
    lines = service.server_log(sid)
    assert len(lines) == 50 and lines[0] == "line 40"


async def test_connect_active_starts_active_trusted_servers_only(service: McpService) -> None:
    a = await add_server(service, stdio_input("a", "basic", is_active=False))
    b = await add_server(service, stdio_input("b", "basic", is_active=False))
    stranger = await add_server(service, stdio_input("stranger", "basic", trusted=False))
    off = await add_server(service, stdio_input("off", "basic", is_active=False))
    for sid in (a, b):
        await servers.update(service, sid, {"isActive": True})
        await service.disconnect(sid)
    assert service.connection_state(a) is ConnectionState.DISCONNECTED
    problems = await service.connect_active()
    assert problems == {}
    assert service.connection_state(a) is ConnectionState.CONNECTED
    assert service.connection_state(b) is ConnectionState.CONNECTED
    assert service.connection_state(stranger) is not ConnectionState.CONNECTED
    assert service.connection_state(off) is ConnectionState.DISCONNECTED


async def _until(done: object, seconds: float = 20) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not done():  # type: ignore[operator]
        assert loop.time() < deadline, "timed out waiting"
        await asyncio.sleep(0.05)


async def test_the_cli_uses_the_saved_call_timeout(tmp_path: Path) -> None:
    """``elftia-mcp call`` (in process, on its own loop in a thread): a 20 s call fails under a saved 1 s default."""

    async def cli(*args: str) -> tuple[int, str]:
        done = await asyncio.to_thread(run_cli, *args, data_dir=tmp_path)
        return done.returncode, done.stdout + done.stderr

    code, out = await cli("add", "sleepy", "--trust", "--", *server_command("basic"))
    assert code == 0, out
    SettingsStore(tmp_path / "settings.json").save(AppSettings(call_timeout=1))
    code, out = await cli("call", "sleepy", "slow", "--args", '{"seconds": 20}')
    assert code != 0 and "timed out in the tool call" in out, out
