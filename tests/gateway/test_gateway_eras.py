"""The gateway serves both protocol eras through one entry: the SDK's ``Client`` (2026-07-28,
``server/discover``) and its ``ClientSession`` (the ``initialize`` handshake), over stdio and HTTP.

A modern client gets the tools, calls them, is asked for input through ``input_required`` when an
upstream server elicits, and hears list changes on its ``subscriptions/listen`` stream.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.gateway.gateway_helpers import (
    add_stdio,
    gateway_argv,
    gateway_env,
    gateway_token_of,
    http_gateway,
    http_session,
    open_catalog,
    stdio_gateway,
    text_of,
)

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    """alpha (basic) and beta (list_changed)."""
    catalog = open_catalog(isolated_data_dir)
    add_stdio(catalog, "alpha", "basic")
    add_stdio(catalog, "beta", "list_changed")
    return isolated_data_dir


async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    """A person answering the form."""
    return types.ElicitResult(action="accept", content={"name": "Grace", "age": 85})


def stdio_client_of(data_dir: Path) -> Client:
    """The SDK's modern client on ``elftia-mcp serve`` over stdio."""
    argv = gateway_argv()
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=gateway_env(data_dir))
    return Client(params, mode="auto", elicitation_callback=elicit)


async def exercise(client: Client, data_dir: Path) -> None:
    """discover, list, call, input_required, listen: what a modern client does through the gateway."""
    assert client.protocol_version == "2026-07-28" and client.session.discover_result is not None
    names = [tool.name for tool in (await client.list_tools()).tools]
    assert "alpha__echo" in names and "beta__grow" in names
    assert text_of(await client.call_tool("alpha__echo", {"text": "hi"})) == "hi"
    assert text_of(await client.call_tool("alpha__ask_name", {})) == "hello Grace (85)"
    async with client.listen(tools_list_changed=True) as events:
        await client.call_tool("beta__grow", {"name": "sprout"})
        with anyio.fail_after(5):
            event = await events.__anext__()
        assert type(event).__name__ == "ToolsListChanged"
        # a tool added after trust is held back until reviewed (tool pinning), then served: told by listen again
        assert "beta__sprout" not in [tool.name for tool in (await client.list_tools(cache_mode="refresh")).tools]
        review = [sys.executable, "-m", "elftia_desktop.cli", "review", "beta", "--accept", "sprout"]
        done = await anyio.run_process(review, env=gateway_env(data_dir), check=False)
        assert done.stdout.decode().strip() == "Accepted: sprout.", done.stderr.decode()
        with anyio.fail_after(10):  # each list change is told; the one after the accept serves the tool
            while "beta__sprout" not in [tool.name for tool in (await client.list_tools(cache_mode="refresh")).tools]:
                assert type(await events.__anext__()).__name__ == "ToolsListChanged"


async def test_modern_and_handshake_clients_over_stdio(data_dir: Path) -> None:
    async with stdio_client_of(data_dir) as client:
        await exercise(client, data_dir)
    async with stdio_gateway(data_dir, elicitation_callback=elicit) as (session, _):
        assert session.protocol_version == "2025-11-25"
        assert text_of(await session.call_tool("alpha__ask_name", {})) == "hello Grace (85)"


async def test_modern_and_handshake_clients_over_http(data_dir: Path) -> None:
    token = gateway_token_of(data_dir)
    with http_gateway(data_dir) as (url, _):
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
            Client(streamable_http_client(url, http_client=http), elicitation_callback=elicit) as client,
        ):
            await exercise(client, data_dir)
        async with http_session(url, token, elicitation_callback=elicit) as (session, _):
            assert text_of(await session.call_tool("alpha__ask_name", {})) == "hello Grace (85)"
