"""Issue 37, item 4: a URL-only entry of an SSE-only server falls back to SSE, and says so.

A Cursor-style ``{"url": "http://127.0.0.1:PORT/sse"}`` is stored as Streamable HTTP; the test
server speaks only the old HTTP+SSE transport, so the initialize POST gets a 4xx. The spec's
backwards-compatibility procedure then tries SSE at the same URL: the call works, and
``test``'s server info and the server's log name the transport that answered.
"""

from __future__ import annotations

import json

import pytest

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.models import McpServerTransport
from elftia_desktop.core.server_json import parse_servers_json
from tests.connections.pool_helpers import add_server
from tests.servers.serve_http import serve_http

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]


async def test_a_url_only_sse_entry_falls_back_to_sse(service: McpService) -> None:
    with serve_http("basic", "sse") as url:
        (parsed,) = parse_servers_json(json.dumps({"mcpServers": {"legacy": {"url": url}}}))
        assert parsed.server is not None and parsed.server.type is McpServerTransport.HTTP  # URL-only: HTTP
        sid = await add_server(service, parsed.server.model_copy(update={"is_trusted": True}))
        response = await service.call_tool(sid, "echo", {"text": "over sse"})
        assert response.content[0]["text"] == "over sse"
        tested = await service.test(sid)
        assert tested.success and tested.server_info is not None
        assert tested.server_info["transport"] == "sse"
        lines = service.server_log(sid)
        assert any("Streamable HTTP answered HTTP status 4" in line and "trying SSE" in line for line in lines)
        assert any(line.endswith("over SSE") for line in lines)


async def test_a_streamable_http_server_says_it_answered(service: McpService) -> None:
    with serve_http("basic", "streamable-http") as url:
        (parsed,) = parse_servers_json(json.dumps({"mcpServers": {"modern": {"url": url}}}))
        assert parsed.server is not None
        sid = await add_server(service, parsed.server.model_copy(update={"is_trusted": True}))
        tested = await service.test(sid)
        assert tested.server_info is not None and tested.server_info["transport"] == "http"
        assert not any("trying SSE" in line for line in service.server_log(sid))
