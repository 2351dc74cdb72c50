"""The pool over SSE and Streamable HTTP, with the test servers served on 127.0.0.1."""

from __future__ import annotations

import socket
from urllib.parse import urlparse

import pytest

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.errors import ServerConnectionError, ServerStartFailed
from elftia_desktop.core.models import ConnectionState
from tests.connections.pool_helpers import add_server, http_input, stdio_input
from tests.servers.auth import TOKEN
from tests.servers.serve_http import serve_http

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]


@pytest.mark.parametrize(("transport", "kind"), [("sse", "sse"), ("streamable-http", "http")])
async def test_call_over_http_transports(service: McpService, transport: str, kind: str) -> None:
    with serve_http("paginated", transport) as url:  # type: ignore[arg-type]
        sid = await add_server(service, http_input(f"paged {kind}", url, kind))
        assert service.connection_state(sid) is ConnectionState.CONNECTED
        tools = await service.list_server_tools(sid)
        assert len(tools) == 25
        response = await service.call_tool(sid, "tool_03", {"x": 1})
        assert response.content[0]["text"] == "tool 3: 1"
        await service.disconnect(sid)
        assert service.connection_state(sid) is ConnectionState.DISCONNECTED


@pytest.mark.parametrize(("transport", "kind"), [("sse", "sse"), ("streamable-http", "http")])
async def test_authorization_header(service: McpService, transport: str, kind: str) -> None:
    good = await add_server(service, stdio_input("good", "basic"))
    with serve_http("auth", transport) as url:  # type: ignore[arg-type]
        bad = await add_server(service, http_input("no token", url, kind, is_active=False))
        with pytest.raises(ServerStartFailed, match="HTTP status 401"):
            await service.init_client(bad)
        assert service.connection_state(bad) is ConnectionState.ERROR
        assert (await service.call_tool(good, "echo", {"text": "x"})).content[0]["text"] == "x"

        server = http_input("with token", url, kind, config={"headers": {"Authorization": f"Bearer {TOKEN}"}})
        sid = await add_server(service, server)
        stored = next(r for r in await service.list_servers() if r.id == sid)
        assert stored.config.headers["Authorization"] == "${secret:Authorization}"
        response = await service.call_tool(sid, "whoami", {})
        assert response.content[0]["text"] == f"Bearer {TOKEN}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("kind", ["sse", "http"])
async def test_connection_refused(service: McpService, kind: str) -> None:
    url = f"http://127.0.0.1:{_free_port()}/mcp"
    sid = await add_server(service, http_input("nobody home", url, kind, is_active=False))
    with pytest.raises(ServerStartFailed, match="connection refused"):
        await service.init_client(sid)
    assert service.connection_state(sid) is ConnectionState.ERROR


async def test_expired_http_session_reconnects(service: McpService) -> None:
    with serve_http("basic", "streamable-http") as url:
        legacy = {"protocol": "legacy"}  # HTTP sessions are of the handshake era
        sid = await add_server(service, http_input("restarting", url, "http", config=legacy))
        assert (await service.call_tool(sid, "echo", {"text": "one"})).content[0]["text"] == "one"
    port = urlparse(url).port
    assert port is not None
    with serve_http("basic", "streamable-http", port=port):
        # The new server process does not know the old session: 404 "Session terminated".
        with pytest.raises(ServerConnectionError, match="ended the HTTP session"):
            await service.call_tool(sid, "echo", {"text": "lost"})
        assert service.connection_state(sid) is ConnectionState.ERROR
        assert (await service.call_tool(sid, "echo", {"text": "two"})).content[0]["text"] == "two"
        assert service.connection_state(sid) is ConnectionState.CONNECTED


async def test_a_modern_server_restarted_under_us_goes_on_answering(service: McpService) -> None:
    with serve_http("basic", "streamable-http") as url:
        sid = await add_server(service, http_input("stateless", url, "http"))
        assert (await service.call_tool(sid, "echo", {"text": "one"})).content[0]["text"] == "one"
    port = urlparse(url).port
    assert port is not None
    with serve_http("basic", "streamable-http", port=port):  # 2026-07-28 has no session to lose
        assert (await service.call_tool(sid, "echo", {"text": "two"})).content[0]["text"] == "two"
        assert service.connection_state(sid) is ConnectionState.CONNECTED
