"""Token counts read as English: ``1 token``, ``≈2,048 tokens``; an empty selection says nothing is sent;
the preview says which name each place gives a tool."""

from __future__ import annotations

import re

from pytestqt.qtbot import QtBot

from elftia_desktop.core.models import MCPTool
from elftia_desktop.core.tool_names import prefixed_names, tool_id
from elftia_desktop.tools.preview import preview_payloads
from elftia_desktop.ui.widgets.tool_picker import ToolPicker, token_count_text


def test_token_counts_are_plural_only_when_plural() -> None:
    assert token_count_text(1, True) == "1 token"
    assert token_count_text(2048, False) == "≈2,048 tokens"


def test_an_empty_selection_says_nothing_is_sent(qtbot: QtBot) -> None:
    picker = ToolPicker()
    qtbot.addWidget(picker)
    picker.set_preview(preview_payloads([]))
    assert picker.provider_info.text() == "No tools ticked: nothing is sent"


def test_the_preview_says_which_name_each_place_gives_a_tool(qtbot: QtBot) -> None:
    """The note's two patterns are the names the payload and the gateway really use for a tool."""
    picker = ToolPicker()
    qtbot.addWidget(picker)
    tool = MCPTool(id=tool_id("files", "read_file"), server_id="id-files", server_name="files", name="read_file")
    picker.set_preview(preview_payloads([tool]))
    note = picker.names_note.text()
    assert picker.names_note.isVisibleTo(picker)
    here, gateway = re.findall(r"\S*<server>\S*<tool>", note)

    def fill(pattern: str) -> str:
        return pattern.replace("<server>", "files").replace("<tool>", "read_file")

    payload_names = [entry.get("name") or entry["function"]["name"] for entry in picker.payloads[0].payload]
    assert payload_names == [fill(here)], "the payload names the tool as the note says"
    assert list(prefixed_names([("id-files", "files", "read_file")])) == [fill(gateway)], "and so does the gateway"
    assert "tools --format" in note and "gateway" in note
