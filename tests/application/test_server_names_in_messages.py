"""A failure about one server names it in a field; its reason comes without the name, never re-split from text.

The window shows the server's name on its card and in its form, so it shows ``reason`` there;
the CLI and the gateway show the whole message ("name: reason"). A name that contains ": "
or a dot once came out doubled or cut when the UI stripped "name: " off the text.
"""

from __future__ import annotations

import pickle

import pytest

from elftia_desktop.application import servers
from elftia_desktop.application.services import open_services
from elftia_desktop.bridge.errors import ErrorCategory, to_bridge_error
from elftia_desktop.connections.events import ConnectionStateChanged
from elftia_desktop.core.errors import DuplicateServerName, ServerStartFailed, ToolCallError
from elftia_desktop.core.models import McpServerInput, McpServerJsonInput
from tests.connections.pool_helpers import stdio_input

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60), pytest.mark.usefixtures("memory_servers")]
NAME = "docs: v2.example"


@pytest.fixture
def anyio_backend() -> str:
    """The services run on asyncio."""
    return "asyncio"


def test_an_error_about_a_server_keeps_name_and_reason_apart() -> None:
    error = ServerStartFailed("command not found: 'npx'", "id-1", server_name=NAME)
    assert str(error) == f"{NAME}: command not found: 'npx'"
    assert (error.server_name, error.reason, error.server_id) == (NAME, "command not found: 'npx'", "id-1")
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.server_name, copy.reason) == (str(error), NAME, error.reason)
    plain = ToolCallError("the tool is disabled")
    assert (plain.server_name, plain.reason, str(plain)) == (None, "the tool is disabled", "the tool is disabled")


def test_the_bridge_error_carries_the_name_and_the_reason() -> None:
    bridged = to_bridge_error(ServerStartFailed("exited with code 3", "id-1", server_name=NAME))
    assert bridged.category is ErrorCategory.CONNECTION
    assert (bridged.server_name, bridged.server_id, bridged.why) == (NAME, "id-1", "exited with code 3")
    assert bridged.message == f"{NAME}: exited with code 3"
    unnamed = to_bridge_error(DuplicateServerName("name: a server named 'x' exists already"))
    assert unnamed.server_name is None and unnamed.why == unnamed.message


async def test_a_failed_connection_reports_its_reason_without_the_name() -> None:
    states: list[ConnectionStateChanged] = []
    async with open_services(builtin_servers=False) as services:
        services.mcp.events.on(ConnectionStateChanged, states.append)
        server = McpServerInput(name=NAME, config={"command": "no-such-mcp-server-xyz"}, is_trusted=True)
        added = await servers.add(services.mcp, server)

        assert added.success and added.server is not None
        assert added.connect_problem is not None and added.connect_problem.startswith("command not found: ")
        assert added.message == f"Added {NAME}. It did not connect: {added.connect_problem}"
        failure = services.mcp.connection_failure(added.server.id)
        assert failure is not None and failure.server_name == NAME and failure.reason == added.connect_problem
        (last,) = [s for s in states if s.state == "error"]
        assert last.reason == added.connect_problem and last.error == f"{NAME}: {added.connect_problem}"
        test = await services.mcp.test(added.server.id)
        assert test.reason is not None and test.reason.startswith("command not found: ")
        assert test.error == f"{NAME}: {test.reason}"


async def test_refused_actions_say_whose_fault_it_is() -> None:
    async with open_services(builtin_servers=False) as services:
        first = await servers.add(services.catalog, stdio_input("twin", "basic"))
        taken = await servers.add(services.catalog, stdio_input("twin", "basic"))
        assert first.success and not taken.success
        assert taken.bad_input and taken.server_name == "twin" and taken.reason is not None
        assert taken.error == f"twin: {taken.reason}"
        unknown = await servers.update(services.catalog, "no-such-id", {"name": "x"})
        assert not unknown.success and unknown.bad_input and unknown.server_name is None
        assert unknown.reason == unknown.error and "no-such-id" in (unknown.error or "")

        pasted = await servers.add_json(
            services.catalog, McpServerJsonInput(json_text='{"mcpServers": {"broken": {"type": "sse"}}}')
        )
        (one,) = pasted.results or []
        assert (one.server_name, one.bad_input) == ("broken", True)
        assert one.reason == "config.url: an SSE server needs a URL" and one.error == f"broken: {one.reason}"
