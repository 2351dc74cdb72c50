"""Issue 32: the stored approval state: defaults from annotations, switches, and records of older files."""

from __future__ import annotations

import json

from elftia_desktop.core.approvals import Answer, answer_of, approval_schema, auto_approved, decided
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.models import McpServerRecord


def test_a_new_server_follows_read_only_hints_until_the_user_decides(
    catalog: ServerCatalog, notes: McpServerRecord
) -> None:
    stored = json.loads(catalog.store.path.read_text(encoding="utf-8"))["mcpServers"][0]
    assert stored["autoApprovedTools"] == [] and stored["disabledAutoApproveTools"] == []
    assert decided(notes, "read_note") is None and decided(notes, "delete_note") is None
    assert auto_approved(notes, "read_note", True)
    assert not auto_approved(notes, "delete_note", False)
    assert not auto_approved(notes, "plain", None)  # no annotations: asks

    _before, after = catalog.set_tool_flag(notes.id, "delete_note", "autoApprove", True)
    assert after.auto_approved_tools == ["delete_note"] and auto_approved(after, "delete_note", False)
    _before, after = catalog.set_tool_flag(notes.id, "read_note", "autoApprove", False)
    assert after.disabled_auto_approve_tools == ["read_note"] and not auto_approved(after, "read_note", True)
    _before, after = catalog.set_tool_flag(notes.id, "delete_note", "autoApprove", False)
    assert after.auto_approved_tools == [] and set(after.disabled_auto_approve_tools) == {"read_note", "delete_note"}
    stored = json.loads(catalog.store.path.read_text(encoding="utf-8"))["mcpServers"][0]
    assert stored["autoApprovedTools"] == [] and set(stored["disabledAutoApproveTools"]) == {"read_note", "delete_note"}


def test_a_record_from_an_older_file_keeps_what_it_had(catalog: ServerCatalog) -> None:
    old = {"id": "mcp_1", "name": "legacy", "type": "stdio", "config": {"command": "npx"}, "isTrusted": True,
           "disabledAutoApproveTools": ["wipe"], "createdAt": 1}  # fmt: skip
    catalog.store.path.write_text(json.dumps({"version": 1, "mcpServers": [old]}), encoding="utf-8")
    record = catalog.find("legacy")
    assert record.auto_approved_tools is None
    assert auto_approved(record, "anything", False) and not auto_approved(record, "wipe", True)
    _before, after = catalog.set_tool_flag(record.id, "wipe", "autoApprove", True)
    assert after.disabled_auto_approve_tools == [] and after.auto_approved_tools is None
    _before, after = catalog.set_tool_flag(record.id, "other", "autoApprove", False)
    assert after.disabled_auto_approve_tools == ["other"] and not auto_approved(after, "other", True)
    stored = json.loads(catalog.store.path.read_text(encoding="utf-8"))["mcpServers"][0]
    assert "autoApprovedTools" not in stored and stored["disabledAutoApproveTools"] == ["other"]


def test_the_approval_form_and_its_answers() -> None:
    schema = approval_schema()
    assert schema["properties"]["answer"]["enum"] == ["Allow once", "Always allow this tool", "Deny"]
    assert answer_of("accept", {"answer": "Always allow this tool"}) is Answer.ALWAYS
    assert answer_of("accept", {"answer": "Allow once"}) is Answer.ONCE
    assert answer_of("accept", {"answer": "whatever"}) is Answer.DENY
    assert answer_of("decline", {"answer": "Allow once"}) is Answer.DENY
    assert answer_of("cancel", None) is Answer.DENY
