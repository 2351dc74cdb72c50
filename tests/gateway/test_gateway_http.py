"""Issue 12: ``serve --http`` behind the bearer token, and two gateways with pools of their own.

The token, progress, questions and hub mode over HTTP are checked on the gateway served from the
test's process (``http_gateway_here``: real HTTP on 127.0.0.1) with the test servers in memory; the
``serve --http`` process (attached to the pool host or with its own pool) keeps calls, list changes and
what becomes of the servers' processes."""

from __future__ import annotations

from pathlib import Path

import httpx2
import mcp_types as types
import pytest
from mcp.client.session import ClientRequestContext

from tests.gateway.gateway_helpers import (
    ACCEPT,
    INITIALIZE,
    add_stdio,
    gateway_token_of,
    http_gateway,
    http_session,
    open_catalog,
    poll,
    process_alive,
    stdio_gateway,
    text_of,
)
from tests.helpers.memory_gateway import http_gateway_here

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180), pytest.mark.daemon]


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    """alpha (basic) and beta (list_changed)."""
    catalog = open_catalog(isolated_data_dir)
    add_stdio(catalog, "alpha", "basic")
    add_stdio(catalog, "beta", "list_changed")
    return isolated_data_dir


@pytest.mark.usefixtures("memory_servers")
async def test_without_the_token_everything_is_401(data_dir: Path) -> None:
    token = gateway_token_of(data_dir)
    assert len(token) >= 40
    assert gateway_token_of(data_dir) == token  # kept, not made anew
    assert token not in (data_dir / "mcp-config.json").read_text(encoding="utf-8")
    async with http_gateway_here() as url:
        assert url.startswith("http://127.0.0.1:")
        async with httpx2.AsyncClient() as client:
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": token}):
                response = await client.post(url, json=INITIALIZE, headers=ACCEPT | headers)
                assert response.status_code == 401
                assert response.headers["www-authenticate"].startswith("Bearer")
            assert (await client.get(url, headers={"Authorization": "Bearer x"})).status_code == 401
            ok = await client.post(url, json=INITIALIZE, headers=ACCEPT | {"Authorization": f"Bearer {token}"})
            assert ok.status_code == 200


@pytest.mark.parametrize("mode", [(), ("--no-daemon",)], ids=["attached", "own-pool"])
async def test_tools_calls_and_list_changed_over_http(data_dir: Path, mode: tuple[str, ...]) -> None:
    token = gateway_token_of(data_dir)
    with http_gateway(data_dir, *mode) as (url, _):
        async with http_session(url, token) as (session, inbox):
            names = [t.name for t in (await session.list_tools()).tools]
            assert {"alpha__echo", "beta__grow"} <= set(names)
            assert text_of(await session.call_tool("alpha__echo", {"text": "over http"})) == "over http"
            pid = int(text_of(await session.call_tool("alpha__pid", {})))
            await session.call_tool("beta__grow", {"name": "shoot"})
            await inbox.wait_for(lambda: inbox.count(types.ToolListChangedNotification) >= 1)
            # a tool added after the server was trusted is held back until reviewed (tool pinning)
            assert "beta__shoot" not in [t.name for t in (await session.list_tools()).tools]
        if mode:  # its own pool: the only client went away, so its servers are stopped
            assert await poll(lambda: not process_alive(pid))
        else:  # the pool host's: its servers stay for the host's other clients (until its idle time)
            assert process_alive(pid)
        # either way the gateway keeps listening
        async with http_session(url, token) as (session, _):
            assert text_of(await session.call_tool("alpha__echo", {"text": "again"})) == "again"


@pytest.mark.usefixtures("memory_servers")
async def test_progress_and_elicitation_over_http(data_dir: Path) -> None:
    add_stdio(open_catalog(data_dir), "gamma", "features")
    token = gateway_token_of(data_dir)
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

    async with http_gateway_here() as url, http_session(url, token, elicitation_callback=elicit) as (session, _):
        result = await session.call_tool("gamma__count", {"steps": 2}, progress_callback=on_progress)
        assert text_of(result) == "counted 2"
        assert seen == [1, 2]
        assert text_of(await session.call_tool("alpha__ask_name", {})) == "hello Ada (36)"


@pytest.mark.usefixtures("memory_servers")
async def test_hub_over_http(data_dir: Path) -> None:
    token = gateway_token_of(data_dir)
    async with http_gateway_here(hub=True) as url, http_session(url, token) as (session, _):
        assert [t.name for t in (await session.list_tools()).tools] == ["find_tools", "call_tool"]
        found = await session.call_tool("find_tools", {"query": "grow tool"})
        assert found.structured_content is not None
        assert found.structured_content["tools"][0]["name"] == "beta__grow"


async def test_two_gateways_each_have_their_own_pool(data_dir: Path) -> None:
    # --no-daemon: attached to the pool host they would share one process (tests/host)
    open_catalog(data_dir).remove(open_catalog(data_dir).find("beta").id)  # only alpha's processes are compared
    async with (
        stdio_gateway(data_dir, "--no-daemon") as (first, _),
        stdio_gateway(data_dir, "--no-daemon") as (second, _),
    ):
        one = int(text_of(await first.call_tool("alpha__pid", {})))
        two = int(text_of(await second.call_tool("alpha__pid", {})))
        assert one != two
        assert process_alive(one) and process_alive(two)
    assert await poll(lambda: not process_alive(one) and not process_alive(two))
    assert open_catalog(data_dir).find("alpha").name == "alpha"  # the config is intact
