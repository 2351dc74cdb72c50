"""Issue 34: a URL-mode question in the window: the domain shown prominently, nothing opened without a click."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from pytestqt.qtbot import QtBot

from elftia_desktop.core.url_elicitation import url_question
from elftia_desktop.ui.dialogs.url_elicitation_dialog import UrlElicitationDialog


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The addresses the dialog asked the system to open."""
    seen: list[str] = []

    def record(url: QUrl) -> bool:
        seen.append(url.toString())
        return True

    monkeypatch.setattr(UrlElicitationDialog, "opener", record)
    return seen


def make(qtbot: QtBot, url: str) -> UrlElicitationDialog:
    dialog = UrlElicitationDialog("linker", "Link your account", url_question(url, "e1"))
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_the_domain_first_and_open_only_on_a_click(qtbot: QtBot, opened: list[str]) -> None:
    dialog = make(qtbot, "https://Accounts.Example.com/link?code=1")
    assert dialog.domain.text() == "accounts.example.com" and dialog.domain.objectName() == "PageTitle"
    assert dialog.address.text() == "https://Accounts.Example.com/link?code=1"
    assert not dialog.warning.isVisible() and dialog.decline_button.isDefault()
    assert opened == []  # shown, not opened
    shot = os.environ.get("ELFTIA_SHOT_DIR")
    if shot:
        dialog.grab().save(str(Path(shot) / "url-elicitation.png"))
    dialog.open_button.click()
    assert opened == ["https://accounts.example.com/link?code=1"] and dialog.action == "accept"


def test_decline_opens_nothing_and_odd_addresses_cannot_be_opened(qtbot: QtBot, opened: list[str]) -> None:
    dialog = make(qtbot, "https://example.com/pay")
    dialog.decline_button.click()
    assert dialog.action == "decline" and opened == []
    plain = make(qtbot, "http://example.com/pay")
    assert plain.warning.isVisible() and "Not an https://" in plain.warning.text() and plain.open_button.isEnabled()
    script = make(qtbot, "javascript:alert(1)")
    assert not script.open_button.isEnabled() and "will not open it" in script.warning.text()
