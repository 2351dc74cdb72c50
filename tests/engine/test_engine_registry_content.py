"""flatten_content and the ToolRegistry."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest

from elftia_desktop.engine.content import describe_exception, flatten_content, tool_result_text
from elftia_desktop.engine.registry import ToolNameConflict, ToolNotRegistered, ToolRegistry, ToolRegistryError
from elftia_desktop.engine.tool import ITool


def _wire(block: types.ContentBlock) -> dict[str, Any]:
    return block.model_dump(mode="json", by_alias=True, exclude_none=True)


def test_flatten_every_content_kind_built_from_sdk_types() -> None:
    blocks = [
        types.TextContent(type="text", text="first line"),
        types.ImageContent(type="image", data="aGk=", mime_type="image/png"),
        types.AudioContent(type="audio", data="aGk=", mime_type="audio/wav"),
        types.EmbeddedResource(
            type="resource", resource=types.TextResourceContents(uri="file:///a.txt", text="inline text")
        ),
        types.EmbeddedResource(
            type="resource",
            resource=types.BlobResourceContents(uri="file:///b.bin", blob="aGk=", mime_type="application/octet-stream"),
        ),
        types.ResourceLink(type="resource_link", uri="file:///c.md", name="c"),
    ]
    assert flatten_content([_wire(b) for b in blocks]) == "\n".join(
        [
            "first line",
            "[Image: image/png]",
            "[Audio: audio/wav]",
            "inline text",
            "[Resource: file:///b.bin]",
            "[Resource link: file:///c.md]",
        ]
    )


def test_flatten_empty_and_unknown_blocks() -> None:
    assert flatten_content([]) == ""
    assert flatten_content([{"type": "hologram"}]) == "[Unsupported content: hologram]"
    assert flatten_content([{"type": "image"}]) == "[Image: unknown type]"


def test_error_results_are_marked_for_the_agent() -> None:
    content = [{"type": "text", "text": "disk full"}]
    assert tool_result_text("t", False, content) == "disk full"
    assert tool_result_text("t", True, content) == "Error: tool t reported an error: disk full"
    assert tool_result_text("t", True, []) == "Error: tool t reported an error: no details given"


def test_describe_exception_unwraps_groups() -> None:
    group = ExceptionGroup("outer", [ValueError("inner reason")])
    assert describe_exception(group) == "ValueError: inner reason"
    assert describe_exception(TimeoutError()) == "TimeoutError"


class EchoTool:
    """A minimal ITool."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.description = f"echo as {name}"
        self.parameters: dict[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}}

    async def needs_approval(self, params: dict[str, Any]) -> bool:
        return False

    async def execute(self, params: dict[str, Any]) -> str:
        return f"{self.name}: {params.get('text', '')}"


def test_registry_register_get_list_unregister() -> None:
    registry = ToolRegistry()
    a, b = EchoTool("a"), EchoTool("b")
    assert isinstance(a, ITool)
    registry.register(a)
    registry.register(b)
    assert registry.get("a") is a
    assert registry.list() == [a, b]
    assert registry.names() == ["a", "b"]
    assert registry.unregister("a") is a
    assert "a" not in registry and len(registry) == 1
    with pytest.raises(ToolNotRegistered, match=r'no tool named "a" is registered'):
        registry.get("a")


def test_collision_is_a_clear_error_and_a_batch_is_all_or_nothing() -> None:
    registry = ToolRegistry()
    registry.register(EchoTool("clock__now"))
    with pytest.raises(ToolNameConflict, match=r'tool name "clock__now" is taken: a EchoTool is registered'):
        registry.register(EchoTool("clock__now"))
    with pytest.raises(ToolNameConflict, match="nothing from this batch was added"):
        registry.register_all([EchoTool("x"), EchoTool("y"), EchoTool("x")])
    assert registry.names() == ["clock__now"]
    with pytest.raises(ToolRegistryError, match="empty name"):
        registry.register(EchoTool(""))


def test_unknown_name_suggests_near_ones() -> None:
    registry = ToolRegistry()
    registry.register(EchoTool("notes__create_note"))
    with pytest.raises(ToolNotRegistered, match=r"did you mean notes__create_note\?"):
        registry.get("notes__create_notes")


@pytest.mark.anyio
async def test_execute_by_name_and_unknown_name_as_text() -> None:
    registry = ToolRegistry()
    registry.register(EchoTool("echo"))
    assert await registry.execute("echo", {"text": "hi"}) == "echo: hi"
    assert (await registry.execute("nope", {})).startswith('Error: no tool named "nope"')
