"""Issue 36: Discover's channels answer typed results built from the SDK's, against the real ``explore`` server."""

from __future__ import annotations

from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.results_explore import (
    Discovery,
    PromptArgument,
    RenderedPrompt,
    ResourceInfo,
    ResourceRead,
    ResourceTemplateInfo,
)
from elftia_desktop.bridge.router import McpRouter
from tests.helpers.live_router import add_servers, server_input

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


def answer(qtbot: QtBot, router: McpRouter, pending: Pending[Any]) -> Any:
    """The request's result (its error fails the test)."""
    box: dict[str, Any] = {}
    pending.then(router.signals, lambda r: box.setdefault("ok", r), lambda e: box.setdefault("error", e))
    qtbot.waitUntil(lambda: bool(box), timeout=WAIT)
    assert "ok" in box, box
    return box["ok"]


def test_discover_lists_prompts_resources_and_tools_typed(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("explore", "explore"))
    found = answer(qtbot, router, router.servers.discover(record.id))
    assert isinstance(found, Discovery) and found.success and found.server is not None
    assert found.server.label == "explore 2.1.0" and found.server.extensions == ()
    (prompt,) = found.prompts
    assert prompt.name == "review" and prompt.label == "review" and prompt.description == "Ask for a code review."
    assert prompt.arguments == (PromptArgument("language", "", True), PromptArgument("code", "", True))
    assert set(found.resources) == {
        ResourceInfo("readme", "memo://readme", "A text resource.", "text/plain"),
        ResourceInfo("logo", "memo://logo", "An image resource.", "image/png"),
    }
    assert found.templates == (
        ResourceTemplateInfo("notes", "memo://notes/{topic}", "A note per topic (a resource template).", "text/plain"),
    )
    order = found.tool("create_order")
    assert order is not None and order.definition["name"] == "create_order"
    assert "customer" in order.input_schema["properties"] and not order.app_only
    assert found.tool("nothing") is None and (found.tools_error, found.prompts_error) == ("", "")


def test_a_prompt_renders_into_messages_and_a_resource_into_contents(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("explore", "explore"))
    prompt = answer(qtbot, router, router.explore.get_prompt(record.id, "review", {"language": "Go", "code": "x"}))
    assert isinstance(prompt, RenderedPrompt)
    assert [(m.role, m.content["text"]) for m in prompt.messages] == [
        ("user", "Review this Go code:\nx"),
        ("assistant", "Sure, here is what I notice:"),
    ]
    text = answer(qtbot, router, router.explore.read_resource(record.id, "memo://notes/cats"))
    assert isinstance(text, ResourceRead)
    (content,) = text.contents
    assert (content.uri, content.mime_type, content.text, content.blob) == (
        "memo://notes/cats",
        "text/plain",
        "Notes about cats.",
        None,
    )
    assert content.as_json() == {"uri": "memo://notes/cats", "mimeType": "text/plain", "text": "Notes about cats."}
    assert text.payload["contents"] == [content.as_json()]  # what an MCP App view asking for it is answered
    image = answer(qtbot, router, router.explore.read_resource(record.id, "memo://logo"))
    (picture,) = image.contents
    assert picture.text is None and picture.blob and picture.mime_type == "image/png"
