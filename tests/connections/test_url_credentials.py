"""Credentials in a server's URL live in the keyring and are put back only when the app connects."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from elftia_desktop.connections.service import McpService
from tests.connections.pool_helpers import add_server, http_input
from tests.servers.serve_http import serve_http

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]


async def test_url_password_and_api_key_reach_the_server_but_not_the_file(service: McpService) -> None:
    with serve_http("url_credentials") as url:
        parts = urlsplit(url)
        secret_url = f"{parts.scheme}://alice:pa55word@{parts.netloc}{parts.path}?api_key=abc123def"
        sid = await add_server(service, http_input("creds", secret_url))
        stored = next(r for r in await service.list_servers() if r.id == sid)
        assert stored.config.url == (
            f"{parts.scheme}://alice:${{secret:URL_PASSWORD}}@{parts.netloc}{parts.path}"
            "?api_key=${secret:URL_QUERY_API_KEY}"
        )
        text = service.catalog.store.path.read_text(encoding="utf-8")
        assert "pa55word" not in text and "abc123def" not in text
        assert (await service.call_tool(sid, "ping", {})).content[0]["text"] == "pong"
