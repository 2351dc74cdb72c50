"""The picker's list of changes: the same change to many tools is one line naming them, not one line per tool;
an empty selection costs no tokens to speak of and says so."""

from __future__ import annotations

from elftia_desktop.core.models import MCPTool
from elftia_desktop.tools.preview import provider_payload


def tool(index: int, schema: dict[str, object]) -> MCPTool:
    return MCPTool.model_validate(
        {"id": f"mcp__s__t{index}", "serverId": "s", "serverName": "s", "name": f"t{index}", "inputSchema": schema}
    )


def test_one_line_for_the_same_change_to_many_tools() -> None:
    uri = {"type": "object", "properties": {"x": {"type": "string", "format": "uri"}}}
    tools = [tool(i, uri) for i in range(9)]
    notes = provider_payload(tools, "gemini").notes
    assert notes == [
        "9 tools (t0, t1, t2, t3, t4, t5 and 3 more) properties.x.format: changed: "
        "described in the description (not a format Gemini documents for STRING)"
    ]
    (single,) = provider_payload(tools[:1], "gemini").notes
    assert single.startswith("t0 properties.x.format: changed:")
