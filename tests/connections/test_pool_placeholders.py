"""Placeholders of imported configs (``${env:X}``, ``${X:-default}``, ``${input:id}``) at start."""

from __future__ import annotations

import pytest

from elftia_desktop.application import servers
from elftia_desktop.connections.service import McpService
from elftia_desktop.core import login_env
from elftia_desktop.core.errors import ServerStartFailed
from elftia_desktop.core.models import ConnectionState
from tests.connections.pool_helpers import add_server, stdio_input

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


@pytest.fixture(autouse=True)
def fresh_login_env() -> None:
    login_env.reset_cache()


async def read_env(service: McpService, server_id: str, name: str) -> str:
    result = await service.call_tool(server_id, "env", {"name": name})
    return str(result.content[0]["text"])


async def test_env_placeholders_expand_from_the_environment(service: McpService, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ELFTIA_T_TOKEN", "tok-from-shell")
    env = {
        "VSCODE_STYLE": "${env:ELFTIA_T_TOKEN}",
        "CLAUDE_STYLE": "Bearer ${ELFTIA_T_TOKEN}",
        "WITH_DEFAULT": "${ELFTIA_T_UNSET:-fallback}",
        "HOME_DIR": "${userHome}/data",
    }
    server_id = await add_server(service, stdio_input("expander", "basic", config={"env": env}))
    assert service.catalog.get(server_id).config.env["VSCODE_STYLE"] == "${env:ELFTIA_T_TOKEN}"  # kept as written
    first_pid = await service.call_tool(server_id, "pid", {})
    assert await read_env(service, server_id, "VSCODE_STYLE") == "tok-from-shell"
    assert await read_env(service, server_id, "CLAUDE_STYLE") == "Bearer tok-from-shell"
    assert await read_env(service, server_id, "WITH_DEFAULT") == "fallback"
    assert (await read_env(service, server_id, "HOME_DIR")).endswith("/data")
    # one process served every call: the placeholders do not make the connection look edited on each use
    assert await service.call_tool(server_id, "pid", {}) == first_pid


async def test_unset_variable_stops_the_start_with_what_to_set(service: McpService) -> None:
    server = stdio_input("missing", "basic", config={"env": {"KEY": "${env:ELFTIA_T_NEVER_SET}"}})
    result = await servers.add(service, server)
    assert result.success and result.server is not None  # saved; the connect failure does not block the add
    with pytest.raises(ServerStartFailed, match="ELFTIA_T_NEVER_SET is not set in your environment"):
        await service.init_client(result.server.id)
    assert service.connection_state(result.server.id) is ConnectionState.ERROR


async def test_vscode_input_placeholder_says_to_fill_it_in(service: McpService) -> None:
    server = stdio_input("prompted", "basic", config={"env": {"API_KEY": "${input:api-key}"}})
    result = await servers.add(service, server)
    assert result.server is not None
    with pytest.raises(ServerStartFailed, match='asks for the input "api-key"'):
        await service.init_client(result.server.id)


async def test_secret_references_are_left_to_the_vault(service: McpService) -> None:
    server_id = await add_server(service, stdio_input("secretive", "basic", config={"env": {"MY_TOKEN": "s3"}}))
    assert service.catalog.get(server_id).config.env == {"MY_TOKEN": "${secret:MY_TOKEN}"}
    assert await read_env(service, server_id, "MY_TOKEN") == "s3"
