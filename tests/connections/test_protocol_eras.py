"""Both protocol eras against SDK-built servers over stdio and Streamable HTTP.

``auto`` meets a server of the SDK (which serves both eras) with ``server/discover`` and speaks
2026-07-28; ``legacy`` forces the ``initialize`` handshake. In both: list, call, progress, cancel,
elicitation (mid-call, or ``input_required`` answered and retried), list changes (notification, or
``subscriptions/listen``), and the era in ``server_info`` and the log. Over HTTP each test server
(with its arguments) runs once for the module (``http_servers``): the tests only connect to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from elftia_desktop.connections.events import ToolProgress, ToolsChanged
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.errors import ServerTimeout, ToolCallCancelled
from elftia_desktop.core.models import ConnectionState, McpServerInput
from elftia_desktop.core.url_elicitation import question_in
from tests.connections.pool_helpers import add_server, http_input, stdio_input
from tests.helpers.cli_runner import CliResult, run_cli
from tests.servers.serve_http import serve_http, server_command

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]
ERAS = {"auto": ("modern", "2026-07-28"), "legacy": ("handshake", "2025-11-25")}


HttpServers = Callable[..., str]
"""``url(name, *args)``: the URL of test server ``name`` (run with ``args``) over Streamable HTTP."""


@pytest.fixture(scope="module")
def http_servers() -> Iterator[HttpServers]:
    """Each test server the tests ask for, started over Streamable HTTP at its first use, stopped at the end."""
    urls: dict[tuple[str, ...], str] = {}
    with contextlib.ExitStack() as stack:

        def url(name: str, *args: str) -> str:
            if (name, *args) not in urls:
                urls[(name, *args)] = stack.enter_context(serve_http(name, "streamable-http", extra=args))
            return urls[(name, *args)]

        yield url


def server_input(name: str, server: str, transport: str, mode: str, http: HttpServers) -> McpServerInput:
    """An input for test server ``server`` over ``transport`` with the ``protocol`` field ``mode``."""
    config = {"protocol": mode}
    if transport == "stdio":
        return stdio_input(name, server, config=config)
    return http_input(name, http(server), "http", config=config)


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_list_call_progress_and_cancel_in_each_era(
    service: McpService, http_servers: HttpServers, transport: str, mode: str, tmp_path: Path
) -> None:
    server = server_input("explore", "explore", transport, mode, http_servers)
    sid = await add_server(service, server)
    result = await service.test(sid)
    assert result.success and "count" in result.tools
    era, version = ERAS[mode]
    assert result.server_info is not None
    assert result.server_info["era"]["era"] == era and result.server_info["protocolVersion"] == version
    assert "tools" in result.server_info["era"]["serverCapabilities"]
    assert any(f"[protocol] {era} era, version {version}" in line for line in service.server_log(sid))

    progress: list[ToolProgress] = []
    service.events.on(ToolProgress, progress.append)
    done = await service.call_tool(sid, "count", {"steps": 3, "delay": 0.01}, call_id="p")
    assert done.content[0]["text"] == "counted to 3" and [p.progress for p in progress] == [1, 2, 3]

    started = asyncio.Event()
    service.events.on(ToolProgress, lambda e: started.set() if e.call_id == "slow" else None)
    marker = tmp_path / "cancelled.txt"
    args = {"steps": 500, "delay": 0.05, "marker": str(marker)}
    call = asyncio.create_task(service.call_tool(sid, "count", args, call_id="slow"))
    await asyncio.wait_for(started.wait(), 30)
    assert service.cancel_call("slow")
    with pytest.raises(ToolCallCancelled):
        await call
    for _ in range(300):  # the server heard it (notifications/cancelled, or the request stream closed)
        if marker.exists():
            break
        await asyncio.sleep(0.05)
    assert marker.read_text(encoding="utf-8").startswith("cancelled at ")
    assert (await service.call_tool(sid, "count", {"steps": 1})).is_error is False


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_elicitation_reaches_the_handler_in_each_era(
    service: McpService, http_servers: HttpServers, transport: str, mode: str
) -> None:
    asked: list[str] = []

    async def handler(server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        asked.append(message)
        return "accept", {"name": "Grace", "age": 85}

    service.set_elicitation_handler(handler)
    server = server_input("asker", "basic", transport, mode, http_servers)
    sid = await add_server(service, server)
    answer = await service.call_tool(sid, "ask_name", {})
    assert answer.content[0]["text"] == "hello Grace (85)" and asked == ["What is your name?"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_tool_added_on_a_modern_server_is_seen_within_a_second(
    service: McpService, http_servers: HttpServers, transport: str
) -> None:
    server = server_input("growing", "list_changed", transport, "auto", http_servers)
    sid = await add_server(service, server)
    assert [t.name for t in await service.list_server_tools(sid)] == ["grow"]
    for _ in range(100):  # the listen stream is opened just after connecting
        if any("listening for list changes: tools" in line for line in service.server_log(sid)):
            break
        await asyncio.sleep(0.02)
    changed = asyncio.Event()
    service.events.on(ToolsChanged, lambda e: changed.set() if e.server_id == sid else None)
    await service.call_tool(sid, "grow", {"name": "sprout"})
    await asyncio.wait_for(changed.wait(), 1.0)
    # seen at once; a tool added after trust waits for review (tool pinning) before it is served
    assert [t.name for t in await service.list_server_tools(sid)] == ["grow"]
    assert service.tools.guard is not None and service.tools.guard.held[sid] == {"sprout"}


async def test_no_relist_within_ttl(service: McpService) -> None:
    sid = await add_server(service, stdio_input("cached", "cached"))
    connection = await service.pool.ensure(await service.records.get(sid))
    session = connection.session
    assert session is not None and connection.era is not None and connection.era.era == "modern"
    first = await session.list_tools()
    assert first.ttl_ms == 60_000
    await session.call_tool("sneak", {"name": "hidden"})
    again = await session.list_tools()  # within ttlMs: served from the cache, the server is not asked
    assert [t.name for t in again.tools] == ["sneak"]
    listed = await service.list_server_tools(sid)
    assert [t.name for t in listed] == ["sneak"]


async def test_a_bad_protocol_field_is_named(service: McpService) -> None:
    sid = await add_server(service, stdio_input("pinned", "basic", config={"protocol": "2025-06-18"}))
    tested = await service.test(sid)
    assert not tested.success and 'protocol field says "2025-06-18"' in (tested.error or "")
    assert 'use "legacy"' in (tested.error or "")
    with pytest.raises(ValueError, match='protocol must be "auto", "legacy" or a protocol version'):
        stdio_input("pinned", "basic", config={"protocol": "newest"})


def liar_input(transport: str, mode: str, http: HttpServers, config: dict[str, Any] | None = None) -> McpServerInput:
    """The server that speaks neither era (``tests/servers/liar.py --mode MODE``) over ``transport``, not active."""
    fields: dict[str, Any] = {"is_active": False, "config": config or {}}
    if transport == "stdio":
        return stdio_input("liar", "liar", extra_args=("--mode", mode), **fields)
    return http_input("liar", http("liar", "--mode", mode), "http", **fields)


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("old", "the server answered: Unsupported protocol version from the server: 1999-01-01"),
        ("future", "the server supports only 2099-01-01"),
    ],
)
async def test_a_server_of_neither_era_is_named_not_hung(
    service: McpService, http_servers: HttpServers, transport: str, mode: str, expected: str
) -> None:
    server = liar_input(transport, mode, http_servers)
    tested = await asyncio.wait_for(service.test(await add_server(service, server)), 30)
    assert not tested.success
    assert "no protocol version in common. Tried server/discover (2026-07-28), then the initialize handshake" in (
        tested.error or ""
    )
    assert expected in (tested.error or "")


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize(
    ("protocol", "tried"),
    [
        ("auto", "tried server/discover (2026-07-28), then the initialize handshake"),
        ("legacy", "tried the initialize handshake (protocol 'legacy')"),
    ],
)
async def test_a_silent_server_times_out_naming_what_was_tried(
    service: McpService, http_servers: HttpServers, transport: str, protocol: str, tried: str
) -> None:
    config = {"protocol": protocol, "timeout": {"connect": 2}}
    server = liar_input(transport, "silent", http_servers, config)
    sid = await add_server(service, server)
    tested = await asyncio.wait_for(service.test(sid), 30)
    assert not tested.success
    assert f"timed out while starting and initializing after 2 s ({tried})" in (tested.error or "")
    assert service.connection_state(sid) is ConnectionState.ERROR


@pytest.mark.parametrize(("mode", "label"), [("auto", "2026-07-28"), ("legacy", "handshake 2025-11-25")])
async def test_a_call_timeout_names_the_protocol(service: McpService, mode: str, label: str) -> None:
    sid = await add_server(service, stdio_input("slowpoke", "basic", config={"protocol": mode}))
    with pytest.raises(ServerTimeout, match=re.escape(f"timed out in the tool call ({label})")):
        await service.call_tool(sid, "slow", {"seconds": 5}, timeout=0.5)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_cli_answers_input_required_with_elicit(tmp_path: Path, http_servers: HttpServers, transport: str) -> None:
    def cli(*args: str, stdin: str | None = None) -> CliResult:
        return run_cli(*args, stdin=stdin, data_dir=tmp_path)

    if transport == "stdio":
        entry = {"command": sys.executable, "args": server_command("basic")[1:]}
    else:
        entry = {"type": "http", "url": http_servers("basic")}
    assert cli("add-json", "-", "--trust", stdin=json.dumps({"mcpServers": {"asker": entry}})).returncode == 0
    tested = cli("test", "asker", "--json")
    assert json.loads(tested.stdout)["serverInfo"]["era"]["era"] == "modern", tested.stderr
    called = cli("call", "asker", "ask_name", "--elicit", "accept-defaults")
    assert called.returncode == 0 and "hello Ada (36)" in called.stdout, called.stderr
    declined = cli("call", "asker", "ask_name", "--elicit", "decline")
    assert "no name: decline" in declined.stdout, declined.stderr


async def test_url_elicitation_shows_the_address(service: McpService) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    async def handler(server_id: str, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        asked.append((message, schema))
        return "accept", {}

    service.set_elicitation_handler(handler)
    sid = await add_server(service, stdio_input("linker", "linker"))
    answer = await service.call_tool(sid, "link_account", {})
    assert answer.content[0]["text"] == "link: accept"
    ((message, schema),) = asked  # the address travels beside the message, with its domain (issue 34)
    question = question_in(schema)
    assert message == "Link your account" and question is not None
    assert (question.url, question.domain, question.https) == ("https://example.com/link", "example.com", True)
    assert "[elicitation] the user agreed to open example.com (https://example.com/link)" in service.server_log(sid)
