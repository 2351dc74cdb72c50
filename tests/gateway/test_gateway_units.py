"""Issue 12: the gateway's pure parts: names, addresses, URI templates, redaction, hub search, scope."""

from __future__ import annotations

import mcp_types as types
import pytest

from elftia_desktop.core.models import Agent, McpMode, McpServerRecord
from elftia_desktop.gateway.core import redact, template_matches
from elftia_desktop.gateway.http_address import Address, parse_address
from elftia_desktop.gateway.hub import search
from elftia_desktop.gateway.scope import Scope


def test_http_addresses() -> None:
    assert parse_address("8765") == Address("127.0.0.1", 8765)
    assert parse_address("0.0.0.0:9000") == Address("0.0.0.0", 9000)
    assert parse_address("[::1]:9000").url == "http://[::1]:9000/mcp"
    for bad in ("http", "70000", "host:", "[::1]9000"):
        with pytest.raises(ValueError, match="--http"):
            parse_address(bad)


def test_uri_templates_and_redaction() -> None:
    assert template_matches("memo://item/{key}", "memo://item/abc")
    assert not template_matches("memo://item/{key}", "memo://item/a/b")
    assert template_matches("file:///{+path}", "file:///home/me/notes.txt")
    assert not template_matches("memo://item/{key}", "other://item/abc")
    assert redact("token sk-123456 and sk-1234567", ["sk-123456", "sk-1234567", "ab"]) == "token *** and ***"


def _tool(name: str, description: str) -> types.Tool:
    return types.Tool(name=name, description=description, input_schema={"type": "object"})


def test_hub_search_ranks_name_hits_first() -> None:
    tools = [
        _tool("github__create_issue", "Create an issue in a repository"),
        _tool("jira__create_ticket", "Open an issue in Jira"),
        _tool("clock__now", "The time"),
    ]
    assert [t.name for t in search(tools, "issue", 10)] == ["github__create_issue", "jira__create_ticket"]
    assert [t.name for t in search(tools, "create jira", 1)] == ["jira__create_ticket"]
    assert search(tools, "", 2) == tools[:2]
    assert search(tools, "weather", 5) == []


def test_scope_follows_the_agent() -> None:
    on = McpServerRecord(name="on", type="stdio", config={"command": "x"}, is_trusted=True)
    off = McpServerRecord(name="off", type="stdio", config={"command": "x"}, is_trusted=True, is_active=False)
    shady = McpServerRecord(name="shady", type="stdio", config={"command": "x"})
    records = [on, off, shady]
    assert Scope().servers(records) == [on]
    assert Scope().untrusted(records) == [shady]
    manual = Agent(name="a", mcp_mode=McpMode.MANUAL, selected_servers=[off.id, shady.id], selected_tools={on.id: []})
    assert Scope(manual).servers(records) == []
    assert Scope(Agent(name="b", mcp_mode=McpMode.DISABLED)).servers(records) == []
    picky = Scope(Agent(name="c", selected_tools={on.id: ["echo"]}))
    assert picky.allows_tool(on, "echo") and not picky.allows_tool(on, "add")
    assert Scope().signature(records) != Scope(manual).signature(records)
