"""Issue 34 (Apps): a tool whose ``_meta.ui.visibility`` leaves out ``"model"`` never reaches a model.

The server (``tests.servers.apps``) has a model tool, an app-only tool and a ``ui://`` view. The
app-only tool is absent from every provider format, the agents' lists, the tool picker's list, the
engine's registry and the gateway's hub mode; the gateway's full mode serves it with its
``_meta.ui`` unchanged, and a call from an app (through the pool or the gateway) still reaches it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from mcp.client.client import Client

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.apps import APP_ONLY, is_app_only
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import Agent, McpMode
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.engine.mcp_tool_adapter import load_mcp_tools
from elftia_desktop.engine.registry import ToolRegistry
from elftia_desktop.gateway.core import Gateway
from elftia_desktop.gateway.scope import Scope
from elftia_desktop.gateway.server import build_server
from elftia_desktop.tools.loader import FORMATS, convert_tools, fetch_agent_server_tools, setup_mcp_tools
from tests.helpers.live_router import server_input
from tests.servers import apps

pytestmark = pytest.mark.usefixtures("memory_servers")

ALL_FORMS = [(fmt, False) for fmt in FORMATS] + [("openai", True), ("openai-responses", True)]


def _names(payload: list[dict[str, Any]]) -> set[str]:
    """Every tool name in a provider payload (any of the formats)."""
    text = json.dumps(payload)
    return {name for name in ("weather", "refresh_view") if name in text}


def test_visibility_rules() -> None:
    assert is_app_only({"ui": {"visibility": ["app"]}})
    assert not is_app_only({"ui": {"visibility": ["model", "app"]}})
    assert not is_app_only({"ui": {"visibility": []}})  # empty: both, the spec's default
    assert not is_app_only({"ui": {"resourceUri": apps.VIEW}})
    assert not is_app_only(None)


@pytest.mark.parametrize(("fmt", "strict"), ALL_FORMS, ids=str)
def test_no_provider_format_carries_an_app_only_tool(fmt: str, strict: bool) -> None:
    async def listed() -> list[dict[str, Any]]:
        async with Client(apps.mcp) as client:
            listed = (await client.list_tools()).tools
            return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed]

    tools = anyio.run(listed)
    assert {t["name"] for t in tools} == {"weather", "refresh_view"}  # the server lists both, as the spec says
    conversion = convert_tools(tools, fmt, strict=strict)
    assert _names(conversion.payload) == {"weather"}
    assert conversion.skipped["refresh_view"].startswith(APP_ONLY)


def _run(body: Callable[[McpService, str], Awaitable[None]]) -> None:
    record = ServerCatalog(ConfigStore(), SecretVault(), AgentStore()).add(server_input("apps", "apps"))
    assert record is not None

    async def main() -> None:
        service = McpService(ServerCatalog(ConfigStore(), SecretVault(), AgentStore()))
        try:
            await asyncio.wait_for(body(service, record.id), 120)
        finally:
            await service.cleanup()

    asyncio.run(main())


def test_agents_picker_and_engine_never_get_it_but_an_app_can_call_it() -> None:
    async def body(service: McpService, server_id: str) -> None:
        assert [t.name for t in await service.list_server_tools(server_id)] == ["weather"]
        agent = Agent(name="a", mcp_mode=McpMode.AUTO)
        picker = await fetch_agent_server_tools(service, agent)
        assert [t.name for t in picker.tools] == ["weather"]
        setup = await setup_mcp_tools(service, agent, "openai", strict=True)
        assert setup is not None and _names(setup["tools"]) == {"weather"}
        registry = ToolRegistry()
        registry.register_all(await load_mcp_tools(service, [server_id]))
        assert [t.name for t in registry.list()] == ["mcp__apps__weather"]
        defs = {t.name: t for t in await service.list_tool_defs(server_id)}  # what an app sees: everything
        assert defs["refresh_view"].meta == apps.APP_ONLY_META
        result = await service.call_tool(server_id, "refresh_view", {"city": "Oslo"})
        assert not result.is_error and result.content[0]["text"] == "refreshed Oslo"

    _run(body)


def test_the_gateway_passes_them_through_and_its_hub_hides_them() -> None:
    async def body(service: McpService, server_id: str) -> None:
        gateway = Gateway(service, lambda: Scope())
        try:
            async with Client(build_server(gateway)) as client:
                tools = {t.name: t for t in (await client.list_tools()).tools}
                assert tools["apps__refresh_view"].meta == apps.APP_ONLY_META  # unchanged, for an Apps host
                assert tools["apps__weather"].meta == apps.MODEL_META
                called = await client.call_tool("apps__refresh_view", {"city": "Oslo"})
                assert not called.is_error
                view = await client.read_resource(apps.VIEW)
                assert view.contents[0].mime_type == "text/html;profile=mcp-app"
            async with Client(build_server(gateway, hub_mode=True)) as hub:
                found = await hub.call_tool("find_tools", {"query": ""})
                assert [t["name"] for t in (found.structured_content or {})["tools"]] == ["apps__weather"]
                refused = await hub.call_tool("call_tool", {"name": "apps__refresh_view", "arguments": {"city": "x"}})
                assert refused.is_error
        finally:
            await gateway.close()

    _run(body)
