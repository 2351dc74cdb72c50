"""Issue 37, item 6: the first error after an HTTP server dies names the URL, not stderr it never had.

A Streamable HTTP server of our own is stopped between two calls: the first failing call must say
what happened at that URL, without a "Last stderr lines:" section (an HTTP server has no stderr
here; that section used to quote Elftia's own protocol log lines).
"""

from __future__ import annotations

import pytest

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.errors import ElftiaError
from tests.connections.pool_helpers import add_server, http_input
from tests.servers.serve_http import serve_http

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]


async def test_the_first_error_after_the_server_died_names_the_url(service: McpService) -> None:
    with serve_http("basic", "streamable-http") as url:
        sid = await add_server(service, http_input("short-lived", url, "http"))
        assert (await service.call_tool(sid, "echo", {"text": "up"})).content[0]["text"] == "up"
    with pytest.raises(ElftiaError) as first:
        await service.call_tool(sid, "echo", {"text": "down"})
    text = str(first.value)
    assert "Last stderr lines" not in text
    assert url in text, text
    with pytest.raises(ElftiaError) as second:
        await service.call_tool(sid, "echo", {"text": "still down"})
    assert "connection refused by" in str(second.value) and "Last stderr lines" not in str(second.value)
