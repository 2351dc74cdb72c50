"""The raw relay beside the SDK session: what it sends, what it hands back, and when it says no.

Real ``basic`` / ``explore`` servers over stdio (and Streamable HTTP, which has no relay). The
relay's calls go through ``McpService.relay_call``; ``call_tool_raw`` is the SDK path.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from elftia_desktop.connections.relay import RAW_ID_PREFIX, StdioRelay
from elftia_desktop.connections.relay_calls import Answer
from elftia_desktop.connections.service import McpService
from elftia_desktop.connections.stdio_process import STAMP_KEYS
from elftia_desktop.core.errors import ElftiaError
from tests.connections.pool_helpers import add_server, http_input, stdio_input
from tests.servers.serve_http import serve_http

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


async def relayed(service: McpService, sid: str, tool: str, arguments: dict[str, Any], **kwargs: Any) -> Answer:
    """The relay's answer to one call (it must take the call)."""
    answer: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
    call = service.relay_call(sid, tool, arguments, answer.set_result, **kwargs)
    assert call is not None
    return await asyncio.wait_for(answer, 60)


def relay_of(service: McpService, sid: str) -> StdioRelay:
    """The relay of a connected stdio server."""
    connection = service.pool.entries[sid].connection
    assert connection is not None and connection.process is not None
    return StdioRelay.of(connection.process)


@pytest.mark.parametrize(("mode", "stamped"), [("auto", True), ("legacy", False)])
async def test_the_call_carries_the_sessions_stamp_and_the_answer_is_the_servers_dict(
    service: McpService, mode: str, stamped: bool
) -> None:
    sid = await add_server(service, stdio_input("alpha", "basic", config={"protocol": mode}))
    await service.list_tool_defs(sid)  # the session's tools/list: the stamp is known from it
    connection = service.pool.entries[sid].connection
    assert connection is not None and connection.process is not None
    stamp = connection.process.stamp
    assert stamp is not None and set(stamp) == (set(STAMP_KEYS) if stamped else set())
    answer = await relayed(service, sid, "add", {"a": 1, "b": 2})
    sdk = await service.call_tool_raw(sid, "add", {"a": 1, "b": 2})
    assert isinstance(answer, dict) and answer["structuredContent"] == sdk.structured_content == {"sum": 3}
    assert answer["content"] == [c.model_dump(mode="json", exclude_none=True) for c in sdk.content]
    assert ("resultType" in answer) is stamped  # the server's own dict: its era's keys


async def test_progress_params_come_back_and_the_token_is_the_relays(service: McpService) -> None:
    sid = await add_server(service, stdio_input("ex", "explore"))
    await service.list_tool_defs(sid)
    seen: list[dict[str, Any]] = []
    answer = await relayed(service, sid, "count", {"steps": 2, "delay": 0.01}, on_progress=seen.append)
    assert isinstance(answer, dict) and not answer.get("isError")
    assert [p["progress"] for p in seen] == [1, 2] and all(p["progressToken"].startswith(RAW_ID_PREFIX) for p in seen)


async def test_a_timeout_fails_as_the_sdk_path_and_tells_the_server(service: McpService) -> None:
    sid = await add_server(service, stdio_input("alpha", "basic"))
    await service.list_tool_defs(sid)
    answer = await relayed(service, sid, "slow", {"seconds": 30}, timeout=0.3)
    assert isinstance(answer, ElftiaError) and "timed out in the tool call" in str(answer)
    with pytest.raises(ElftiaError, match="timed out in the tool call"):
        await service.call_tool_raw(sid, "slow", {"seconds": 30}, timeout=0.3)
    for _ in range(200):
        if sum("slow cancelled" in line for line in service.server_log(sid)) == 2:
            break
        await asyncio.sleep(0.05)
    assert sum("slow cancelled" in line for line in service.server_log(sid)) == 2
    assert not relay_of(service, sid).pending


async def test_the_relay_says_no_where_the_sdk_path_must_answer(service: McpService) -> None:
    sid = await add_server(service, stdio_input("alpha", "basic"))
    assert service.relay_call("nope", "echo", {}, print) is None  # no such server
    await service.list_tool_defs(sid)
    assert service.relay_call(sid, "nope", {}, print) is None  # no such tool: check_callable says why
    service.catalog.set_tool_flag(sid, "echo", "enabled", False)
    assert service.relay_call(sid, "echo", {"text": "x"}, print) is None  # the file changed: read it first
    await service.records.current()
    assert service.relay_call(sid, "echo", {"text": "x"}, print) is None  # disabled
    service.pool.entries[sid].last_used -= 3600
    assert service.relay_call(sid, "add", {"a": 1, "b": 1}, print) is None  # idle: the pool pings it first
    with serve_http("basic", "streamable-http") as url:
        hid = await add_server(service, http_input("web", url, "http"))
        await service.list_tool_defs(hid)
        assert service.relay_call(hid, "echo", {"text": "x"}, print) is None  # not stdio
