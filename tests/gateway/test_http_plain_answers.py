"""Issue 30: a POST whose event stream would carry only its answer gets plain JSON, on a kept-alive connection.

A real SDK server (``MCPServer``'s Streamable HTTP app) behind the gateway's guard, served by the
gateway's uvicorn on 127.0.0.1: quiet calls and errors are answered ``application/json`` (same
status, same session id), a call with progress keeps its event stream, and an SDK client's calls
reuse one connection.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import Context, MCPServer
from starlette.types import ASGIApp, Receive, Scope, Send

from elftia_desktop.gateway import http_answers
from elftia_desktop.gateway.http import BearerGuard, serve_http
from elftia_desktop.gateway.http_address import Address, listen
from elftia_desktop.gateway.http_answers import lone_answer
from tests.gateway.gateway_helpers import ACCEPT, INITIALIZE

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

TOKEN = "t" * 43
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def patient(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream's headers wait for its first event however slow the machine is (a quick call stays quick)."""
    monkeypatch.setattr(http_answers, "RELEASE_AFTER", 60.0)


def _server(go_on: asyncio.Event | None = None) -> MCPServer:
    server = MCPServer("answers")

    @server.tool()
    async def held() -> str:
        """Answer once the test says so."""
        assert go_on is not None
        await go_on.wait()
        return "late"

    @server.tool()
    async def echo(text: str) -> str:
        """Answer at once."""
        return text

    @server.tool()
    async def count(steps: int, ctx: Context) -> str:
        """Report progress once per step, then answer."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps)
        return f"counted {steps}"

    return server


class Peers:
    """An ASGI layer noting the client address of every ``tools/call`` POST (one address: one connection)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.calls: list[tuple[str, int]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Note the POST's peer, then serve it."""
        if scope["type"] == "http" and scope["method"] == "POST":
            body = b""
            while True:
                message = await receive()
                body += message.get("body", b"")
                if not message.get("more_body"):
                    break
            if b'"tools/call"' in body:
                self.calls.append(tuple(scope["client"]))
            replayed = [{"type": "http.request", "body": body, "more_body": False}]

            async def again() -> Any:
                return replayed.pop() if replayed else await receive()

            await self.app(scope, again, send)
            return
        await self.app(scope, receive, send)


@asynccontextmanager
async def served(app: ASGIApp) -> AsyncIterator[str]:
    """``app`` on a port of 127.0.0.1 through the gateway's uvicorn; its ``/mcp`` URL."""
    sock, address = listen(Address("127.0.0.1", 0))
    stop = asyncio.Event()
    serving = asyncio.create_task(serve_http(app, sock, stop, hosted=True))
    try:
        yield address.url
    finally:
        stop.set()
        await serving


def _request(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def _events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[len("data: ") :]) for line in text.splitlines() if line.startswith("data: ")]


@pytest.mark.usefixtures("patient")
async def test_quiet_answers_are_json_and_a_stream_stays_a_stream() -> None:
    async with served(BearerGuard(_server().streamable_http_app(), TOKEN)) as url, httpx2.AsyncClient() as client:
        opened = await client.post(url, json=INITIALIZE, headers=ACCEPT | AUTH)
        assert (opened.status_code, opened.headers["content-type"]) == (200, "application/json")
        assert opened.json()["result"]["serverInfo"]["name"] == "answers"
        session = opened.headers["mcp-session-id"]
        headers = ACCEPT | AUTH | {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
        done = await client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        assert done.status_code == 202

        call = {"name": "echo", "arguments": {"text": "plain"}}
        quiet = await client.post(
            url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}, headers=headers
        )
        assert (quiet.status_code, quiet.headers["content-type"]) == (200, "application/json")
        assert quiet.headers["mcp-session-id"] == session
        assert int(quiet.headers["content-length"]) == len(quiet.content)
        assert quiet.json()["id"] == 2
        assert quiet.json()["result"]["content"][0]["text"] == "plain"

        unknown = await client.post(url, json={"jsonrpc": "2.0", "id": "x", "method": "no/such"}, headers=headers)
        assert (unknown.status_code, unknown.headers["content-type"]) == (200, "application/json")
        assert (unknown.json()["id"], unknown.json()["error"]["code"]) == ("x", -32601)

        progress = {"name": "count", "arguments": {"steps": 2}, "_meta": {"progressToken": "p"}}
        chatty = await client.post(
            url, json={"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": progress}, headers=headers
        )
        assert chatty.headers["content-type"].startswith("text/event-stream")
        events = _events(chatty.text)
        assert [event.get("method") for event in events] == ["notifications/progress"] * 2 + [None]
        assert events[-1]["id"] == 3
        assert events[-1]["result"]["content"][0]["text"] == "counted 2"


async def test_a_call_with_no_event_in_time_gets_its_stream_before_its_answer() -> None:
    go_on = asyncio.Event()
    async with served(BearerGuard(_server(go_on).streamable_http_app(), TOKEN)) as url, httpx2.AsyncClient() as client:
        opened = await client.post(url, json=INITIALIZE, headers=ACCEPT | AUTH)
        session = opened.headers["mcp-session-id"]
        headers = ACCEPT | AUTH | {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
        call = _request(2, "tools/call", {"name": "held", "arguments": {}})
        async with client.stream("POST", url, json=call, headers=headers) as late:
            assert late.headers["content-type"].startswith("text/event-stream")  # no answer exists yet
            assert late.headers["mcp-session-id"] == session
            go_on.set()
            events = _events((await late.aread()).decode())
        assert [(event["id"], event["result"]["content"][0]["text"]) for event in events] == [(2, "late")]


@pytest.mark.usefixtures("patient")
async def test_an_sdk_clients_calls_keep_one_connection() -> None:
    peers = Peers(_server().streamable_http_app())
    async with (
        served(BearerGuard(peers, TOKEN)) as url,
        httpx2.AsyncClient(headers=AUTH) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        for index in range(6):
            result = await session.call_tool("echo", {"text": f"call {index}"})
            assert result.content[0].text == f"call {index}"  # type: ignore[union-attr]
    assert len(peers.calls) == 6
    assert len(set(peers.calls)) <= 2  # an event stream the client stops reading closes: six connections


async def test_connections_of_the_listener_send_without_delay() -> None:
    sock, address = listen(Address("127.0.0.1", 0))
    nodelay: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def accepted(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nodelay.set_result(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(accepted, sock=sock)
    async with server:
        _reader, writer = await asyncio.open_connection(address.host, address.port)
        assert await nodelay != 0
        writer.close()


def _event(message: str) -> bytes:
    return f"event: message\r\ndata: {message}\r\n\r\n".encode()


@pytest.mark.parametrize(
    ("message", "answer"),
    [
        ('{"jsonrpc":"2.0","id":4,"result":{"content":[]}}', True),
        ('{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}}', True),
        ('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}', False),
        ('{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{}}', False),
        ('{"jsonrpc":"2.0","id":"a\\",\\"result\\":","method":"sampling/createMessage"}', False),
    ],
    ids=["result", "error", "notification", "question", "question-with-tricky-id"],
)
def test_only_a_response_is_a_lone_answer(message: str, answer: bool) -> None:
    assert lone_answer(_event(message)) == (message.encode() if answer else None)


def test_a_chunk_of_more_than_one_event_is_no_lone_answer() -> None:
    response = '{"jsonrpc":"2.0","id":4,"result":{}}'
    assert lone_answer(_event(response) + _event(response)) is None
    assert lone_answer(b": ping\r\n\r\n") is None
    assert lone_answer(b"") is None
