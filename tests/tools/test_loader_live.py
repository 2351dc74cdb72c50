"""The loader and ``elftia-mcp tools`` against a real MCP server (stdio subprocess) via McpService."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from elftia_desktop.cli import main
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import Agent, McpMode, McpServerInput
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.tools.formats.openai_strict import strip_strict_nulls
from elftia_desktop.tools.loader import fetch_mcp_tools, setup_mcp_tools
from tests.tools.provider_checks import check_anthropic, check_gemini, check_openai

SERVER = Path(__file__).parent / "schema_server.py"


def add_schema_server(name: str = "schemas", active: bool = True) -> str:
    catalog = ServerCatalog(ConfigStore(), SecretVault())
    server = McpServerInput(
        name=name, type="stdio", config={"command": sys.executable, "args": [str(SERVER)]}, is_trusted=True,
        is_active=active,
    )  # fmt: skip
    record = catalog.add(server)
    assert record is not None
    return record.id


async def _with_service(body):  # type: ignore[no-untyped-def]
    service = McpService(ServerCatalog(ConfigStore(), SecretVault()))
    try:
        return await asyncio.wait_for(body(service), 120)
    finally:
        await service.cleanup()


def test_setup_routes_a_strict_call_back_to_the_server() -> None:
    server_id = add_schema_server()

    async def body(service: McpService) -> None:
        assert await setup_mcp_tools(service, None, "openai") is None
        assert (await fetch_mcp_tools(service, Agent(name="off", mcp_mode=McpMode.DISABLED))).tools == []
        setup = await setup_mcp_tools(service, Agent(name="auto"), "openai", strict=True)
        assert setup is not None
        check_openai(setup["tools"])
        assert {t.name for t in setup["mcpTools"]} >= {"tree", "pets", "echo_args", "files.read v2"}
        name = next(n for n, ref in setup["nameMap"].items() if ref.tool_name == "files.read v2")
        assert len(name) <= 64 and name.startswith("mcp__schemas__files_read_v2")
        # the model fills every strict property; nulls of non-nullable optional ones are removed again
        echo = next(t for t in setup["mcpTools"] if t.name == "echo_args")
        args = strip_strict_nulls({"data": None, "count": 3}, echo.input_schema)
        ref = setup["nameMap"][echo.id]
        result = await service.call_tool(ref.server_id, ref.tool_name, args)
        assert not result.is_error
        assert json.loads(result.content[0]["text"]) == {"data": None, "count": 3}
        for api, check in (("anthropic", check_anthropic), ("google", check_gemini)):
            manual = Agent(name="m", mcp_mode=McpMode.MANUAL, selected_servers=[server_id, "missing"])
            converted = await setup_mcp_tools(service, manual, api)
            assert converted is not None
            check(converted["tools"])
            assert "no longer configured" in converted["errors"]["missing"]

    asyncio.run(_with_service(body))


def test_cli_tools_prints_the_payload(capsys: pytest.CaptureFixture[str]) -> None:
    add_schema_server()
    assert main(["tools", "--server", "schemas", "--format", "gemini", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    check_gemini(out["payload"])
    assert out["nameMap"]["mcp__schemas__tree"] == "tree"
    assert main(["tools", "--format", "table"]) == 0
    assert "files.read v2" in capsys.readouterr().out
