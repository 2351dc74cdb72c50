"""Token counts read as English: ``1 token``, ``≈2,048 tokens``; an empty selection says nothing is sent."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

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
