"""What the built-in servers tell a model and a person about their tools is plain text: no reStructuredText
double backticks in any description or schema (they reach the provider payload as they are)."""

from __future__ import annotations

import json

import pytest

from tests.builtin_servers.builtin_helpers import builtin_session

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


@pytest.mark.parametrize("name", ["clock", "notes"])
async def test_tool_texts_have_no_rst_markup(name: str) -> None:
    async with builtin_session(name) as session:
        tools = (await session.list_tools()).tools
    assert tools
    for tool in tools:
        text = json.dumps([tool.description, tool.input_schema, tool.output_schema])
        assert "``" not in text, f"{name}.{tool.name}: {text[:200]}"
