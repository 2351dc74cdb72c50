"""The HTTP gateway's guard: a reset token is revoked at once, the scheme is case-insensitive,
and a foreign ``Origin`` is refused on every bind address.

The gateway (``serve --http --no-daemon``'s) serves real HTTP on its socket from the test's process
(``http_gateway_here``); ``serve --http`` as a process is tests/gateway/test_gateway_http.py's and
tests/host's."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import anyio
import httpx2
import pytest

from tests.gateway.gateway_helpers import (
    ACCEPT,
    INITIALIZE,
    add_stdio,
    gateway_env,
    gateway_token_of,
    open_catalog,
)
from tests.helpers.memory_gateway import http_gateway_here

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    add_stdio(open_catalog(isolated_data_dir), "alpha", "basic")
    return isolated_data_dir


async def _status(url: str, **headers: str) -> int:
    async with httpx2.AsyncClient() as client:
        response = await client.post(url, json=INITIALIZE, headers=ACCEPT | headers)
        return response.status_code


async def test_reset_revokes_the_old_token_at_once(data_dir: Path) -> None:
    old = gateway_token_of(data_dir)
    async with http_gateway_here() as url:  # one gateway throughout: the reset needs no restart
        assert await _status(url, Authorization=f"Bearer {old}") == 200
        reset = await anyio.run_process(
            [sys.executable, "-m", "elftia_desktop.cli", "gateway", "token", "--reset"], env=gateway_env(data_dir)
        )
        new = reset.stdout.decode().strip().splitlines()[-1]
        assert new != old and len(new) >= 40
        assert await _status(url, Authorization=f"Bearer {old}") == 401
        assert await _status(url, Authorization=f"Bearer {new}") == 200


async def test_the_bearer_scheme_is_case_insensitive(data_dir: Path) -> None:
    token = gateway_token_of(data_dir)
    async with http_gateway_here() as url:
        assert await _status(url, Authorization=f"bearer {token}") == 200
        assert await _status(url, Authorization=f"BEARER {token}") == 200
        assert await _status(url, Authorization=f"Basic {token}") == 401


async def test_a_foreign_origin_is_refused_on_a_non_loopback_bind(data_dir: Path) -> None:
    token = gateway_token_of(data_dir)
    async with http_gateway_here(bind="0.0.0.0:0") as url:
        port = re.search(r":(\d+)/mcp", url)
        assert port is not None
        local = f"http://127.0.0.1:{port.group(1)}/mcp"
        auth = f"Bearer {token}"
        async with httpx2.AsyncClient() as client:
            refused = await client.post(
                local, json=INITIALIZE, headers=ACCEPT | {"Authorization": auth, "Origin": "http://evil.example"}
            )
            assert refused.status_code == 403
            assert refused.json() == {
                "error": "forbidden",
                "error_description": "requests from web pages on other sites are not accepted",
            }
        assert await _status(local, Authorization=auth, Origin=f"http://localhost:{port.group(1)}") == 200
        assert await _status(local, Authorization=auth) == 200  # no Origin: not a browser
