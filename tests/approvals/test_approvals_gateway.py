"""Issue 32: the gateway asks before a tool that is not auto-approved runs.

An SDK client on the SDK's in-memory transport talks to the gateway's server in process; the
gateway's pool opens the approvals test server in memory too (the ``memory_servers`` seam).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.context import ClientRequestContext

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.engine.approval import Answer, ApprovalRequest
from elftia_desktop.gateway.core import Gateway
from elftia_desktop.gateway.scope import Scope
from elftia_desktop.gateway.server import build_server

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("memory_servers")]


@asynccontextmanager
async def connected(gateway: Gateway, **callbacks: Any) -> AsyncIterator[Client]:
    """A legacy-era client of ``gateway`` over the in-memory transport."""
    async with Client(build_server(gateway), mode="legacy", **callbacks) as client:
        yield client


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def test_an_app_that_declared_elicitation_is_asked(
    service: McpService, catalog: ServerCatalog, notes: McpServerRecord
) -> None:
    asked: list[types.ElicitRequestParams] = []
    answers = ["Allow once", "Always allow this tool"]

    async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"answer": answers.pop(0)})

    gateway = Gateway(service, Scope)
    async with connected(gateway, elicitation_callback=elicit) as client:
        assert text(await client.call_tool("notes__read_note", {"key": "r"})) == "note r"
        assert asked == []  # read-only: not asked
        result = await client.call_tool("notes__delete_note", {"key": "x"})
        assert not result.is_error and text(result) == "deleted x"
        question = asked[0]
        assert isinstance(question, types.ElicitRequestFormParams)
        assert '"delete_note" of the server "notes"' in question.message
        assert "may delete or overwrite" in question.message and '"key": "x"' in question.message
        assert question.requested_schema["properties"]["answer"]["enum"][1] == "Always allow this tool"
        assert text(await client.call_tool("notes__delete_note", {"key": "y"})) == "deleted y"
        assert catalog.get(notes.id).auto_approved_tools == ["delete_note"]
        assert text(await client.call_tool("notes__delete_note", {"key": "z"})) == "deleted z"
        assert len(asked) == 2


async def test_a_declined_form_denies(service: McpService, notes: McpServerRecord) -> None:
    async def decline(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async with connected(Gateway(service, Scope), elicitation_callback=decline) as client:
        result = await client.call_tool("notes__post_note", {"text": "hi"})
        assert result.is_error and text(result) == 'The user denied the call of "post_note" of notes.'
        assert "post_note" not in text(await client.call_tool("notes__ran", {}))


async def test_without_elicitation_the_call_is_refused_with_how_to_approve(
    service: McpService, notes: McpServerRecord
) -> None:
    async with connected(Gateway(service, Scope)) as client:
        result = await client.call_tool("notes__plain", {})
        assert result.is_error
        assert text(result) == (
            '"plain" of notes needs approval and nobody could be asked: run elftia-mcp tools notes --approve plain, '
            "or switch on its Auto-approve in the window's Discover dialog."
        )
        assert "plain" not in text(await client.call_tool("notes__ran", {}))


async def test_without_elicitation_the_window_is_asked_when_it_hosts(
    service: McpService, notes: McpServerRecord
) -> None:
    asked: list[ApprovalRequest] = []

    async def window(request: ApprovalRequest) -> Answer:
        asked.append(request)
        return Answer.ONCE

    gateway = Gateway(service, Scope)
    gateway.window_approval = window
    async with connected(gateway) as client:
        assert text(await client.call_tool("notes__post_note", {"text": "hi"})) == "posted hi"
    assert [(r.tool_name, r.arguments, r.hints()) for r in asked] == [
        ("post_note", {"text": "hi"}, "may change things, deletes nothing, reaches outside services")
    ]


async def test_a_modern_client_is_asked_in_an_input_round(service: McpService, notes: McpServerRecord) -> None:
    asked: list[types.ElicitRequestParams] = []

    async def elicit(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"answer": "Allow once"})

    async with Client(build_server(Gateway(service, Scope)), mode="auto", elicitation_callback=elicit) as client:
        assert text(await client.call_tool("notes__delete_note", {"key": "m"})) == "deleted m"
    assert len(asked) == 1 and '"delete_note" of the server "notes"' in asked[0].message
