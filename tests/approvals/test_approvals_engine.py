"""Issue 32: the engine asks before a tool that is not auto-approved runs (McpToolAdapter's callback).

Real McpService, the approvals test server on the SDK's in-memory transport (the ``memory_servers``
seam); ``ran`` tells which calls reached the server.
"""

from __future__ import annotations

import pytest

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.engine.approval import Answer, ApprovalRequest
from elftia_desktop.engine.mcp_tool_adapter import McpToolAdapter, load_mcp_tools

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("memory_servers")]


class Person:
    """An approval callback that answers as told and keeps the questions."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Answer | None:
        self.asked.append(request)
        return self.answers.pop(0)


async def _adapters(service: McpService, record: McpServerRecord, person: Person | None) -> dict[str, McpToolAdapter]:
    return {a.mcp_tool.name: a for a in await load_mcp_tools(service, [record.id], approve=person)}


async def test_read_only_tools_run_and_others_are_refused_without_a_callback(
    service: McpService, notes: McpServerRecord
) -> None:
    tools = await _adapters(service, notes, None)
    assert not await tools["read_note"].needs_approval({"key": "a"})
    assert await tools["delete_note"].needs_approval({"key": "a"})
    assert await tools["read_note"].execute({"key": "a"}) == "note a"
    refused = await tools["delete_note"].execute({"key": "a"})
    assert refused.startswith('Error: "delete_note" of notes needs approval and nobody could be asked')
    assert "elftia-mcp tools notes --approve delete_note" in refused
    assert "delete_note a" not in str(await tools["ran"].execute({}))


async def test_the_callback_sees_the_question_and_its_answers_count(
    service: McpService, catalog: ServerCatalog, notes: McpServerRecord
) -> None:
    person = Person(Answer.ONCE, Answer.DENY, Answer.ALWAYS)
    tools = await _adapters(service, notes, person)
    assert await tools["delete_note"].execute({"key": "a"}) == "deleted a"
    asked = person.asked[0]
    assert (asked.server_name, asked.tool_name, asked.arguments) == ("notes", "delete_note", {"key": "a"})
    assert asked.hints() == "may change things, may delete or overwrite, stays within its own data"
    assert '"key": "a"' in asked.question()
    denied = await tools["delete_note"].execute({"key": "b"})
    assert denied == 'Error: The user denied the call of "delete_note" of notes.'
    assert await tools["post_note"].execute({"text": "hi"}) == "posted hi"  # always: saved
    assert catalog.get(notes.id).auto_approved_tools == ["post_note"]
    assert await tools["post_note"].execute({"text": "again"}) == "posted again"
    assert len(person.asked) == 3  # "always" was not asked again
    ran = await tools["ran"].execute({})
    assert "delete_note a" in ran and "delete_note b" not in ran and "post_note again" in ran


async def test_a_switch_made_elsewhere_counts_at_the_next_call(
    service: McpService, catalog: ServerCatalog, notes: McpServerRecord
) -> None:
    tools = await _adapters(service, notes, None)
    catalog.set_tool_flag(notes.id, "plain", "autoApprove", True)  # as another process would
    assert await tools["plain"].execute({}) == "plain ran"
    catalog.set_tool_flag(notes.id, "read_note", "autoApprove", False)
    assert await tools["read_note"].needs_approval({"key": "a"})
    assert (await tools["read_note"].execute({"key": "a"})).startswith('Error: "read_note" of notes needs approval')
