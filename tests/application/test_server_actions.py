"""The server actions on services opened by the assembly point, against real stdio test servers.

A server named ``docs.example`` once came out "docs.example is trusted.example. It did not
connect: …": the trust message was re-split at the first dot of the text.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from elftia_desktop.application import messages, servers, tools
from elftia_desktop.application.services import open_services
from elftia_desktop.core.models import ConnectionState, McpServerJsonInput
from tests.connections.pool_helpers import stdio_input
from tests.helpers.cli_runner import CliResult, run_cli

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def anyio_backend() -> str:
    """The services run on asyncio."""
    return "asyncio"


async def test_trusting_a_dotted_name_that_does_not_connect_says_so_once() -> None:
    async with open_services(builtin_servers=False) as services:
        added = await servers.add(services.mcp, stdio_input("docs.example", "exit3", trusted=False))
        assert added.success and added.server is not None
        assert added.message == "Added docs.example."  # untrusted: not started

        trusted = await servers.trust(services.mcp, added.server.id)

        assert trusted.success and trusted.message is not None
        assert trusted.message.startswith("docs.example is trusted. It did not connect: "), trusted.message
        assert "trusted.example" not in trusted.message
        assert trusted.connect_problem is not None and "exit" in trusted.connect_problem
        assert trusted.message == messages.trusted("docs.example", trusted.connect_problem)


async def test_trusting_a_dotted_name_that_connects() -> None:
    async with open_services(builtin_servers=False) as services:
        added = await servers.add(services.mcp, stdio_input("docs.example", "basic", trusted=False))
        assert added.server is not None

        trusted = await servers.trust(services.mcp, added.server.id)

        assert trusted.message == "docs.example is trusted."
        assert services.mcp.connection_state(added.server.id) is ConnectionState.CONNECTED


def test_the_cli_trusts_a_dotted_name() -> None:
    def cli(*args: str) -> CliResult:
        return run_cli(*args)

    assert cli("add", "docs.example", "--", sys.executable, "-c", "pass").returncode == 0
    trusted = cli("trust", "docs.example", "--yes")
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stdout.splitlines()[-1] == "docs.example is trusted."


async def test_a_failed_server_of_pasted_json_names_it_in_a_field() -> None:
    text = '{"mcpServers": {"first.one": {"command": "x"}, "first.ONE": {"command": "y"}, "bad": 3}}'
    async with open_services(builtin_servers=False) as services:
        catalog = services.catalog
        skipped = await servers.add_json(catalog, McpServerJsonInput(json=text, on_conflict="skip"))

    assert skipped.results is not None
    first, same, bad = skipped.results
    assert first.success and not first.skipped
    assert (same.success, same.skipped, same.server_name) == (False, True, "first.ONE")
    assert same.reason == messages.NAME_TAKEN_SKIPPED
    assert same.error == f"first.ONE: {messages.NAME_TAKEN_SKIPPED}"
    assert (bad.success, bad.server_name) == (False, "bad")
    assert bad.error is not None and bad.error.startswith("bad: ")
    assert skipped.message == "Added 1 of 3 servers."


async def test_switching_a_tool_off_hides_it_from_listing() -> None:
    async with open_services(builtin_servers=False) as services:
        added = await servers.add(services.mcp, stdio_input("basic", "basic"))
        assert added.server is not None
        sid = added.server.id
        assert "echo" in [t.name for t in await services.mcp.list_server_tools(sid)]

        off = await tools.set_tool_flag(services.mcp, sid, "echo", "enabled", False)

        assert off.message == "echo of basic is disabled."
        assert off.server is not None and off.server.disabled_tools == ["echo"]
        assert "echo" not in [t.name for t in await services.mcp.list_server_tools(sid)]
        on = await tools.set_tool_flag(services.mcp, sid, "echo", "enabled", True)
        assert on.server is not None and on.server.disabled_tools == []
