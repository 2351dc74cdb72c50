"""Issue 32's last newcomer items: a Details box shows its details at once, the Add form speaks of the keyring
truthfully, descriptions show `code` spans as code."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox, QTextEdit, QWidget
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.explore_views import tool_info
from elftia_desktop.ui.dialogs.discover_dialog import ToolCard
from elftia_desktop.ui.dialogs.server_form import McpServerForm
from elftia_desktop.ui.pages.page_frame import PageFrame
from elftia_desktop.ui.widgets.key_value_editor import RowSpec

pytestmark = pytest.mark.timeout(120)


def _open_details(button_owner: QWidget, click: object) -> list[tuple[str, bool]]:
    """Click a Details… button; return what the box that opened shows (its detail text and whether it is visible)."""
    seen: list[tuple[str, bool]] = []

    def look() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, look)
            return
        box.grab().save(f"/tmp/p32d/details_{type(button_owner).__name__}.png")
        seen.extend((edit.toPlainText(), edit.isVisible()) for edit in box.findChildren(QTextEdit))
        box.accept()

    QTimer.singleShot(0, look)
    assert callable(click)
    click()
    return seen


def test_a_notice_details_box_opens_with_the_details_shown(qtbot: QtBot) -> None:
    page = PageFrame("Browse")
    qtbot.addWidget(page)
    page.resize(900, 600)
    page.show()
    page.notice.show_message("Some registries could not be refreshed.", "warning", "registry.example: HTTP 503")
    seen = _open_details(page, page.notice.details_button.click)
    assert seen == [("registry.example: HTTP 503", True)], "one click on Details… shows the details"


def test_the_add_form_never_promises_a_keyring_that_may_not_work(qtbot: QtBot) -> None:
    form = McpServerForm()
    qtbot.addWidget(form)
    form.ui.auth.mode.setCurrentIndex(form.ui.auth.mode.findData("oauth"))
    form.ui.env.add_row(RowSpec("API_KEY", "s3cret", secret=True))
    words = [text for w in form.findChildren(QWidget) for text in (w.toolTip(), getattr(w, "text", str)())]
    words = [text for text in words if isinstance(text, str) and "keyring" in text.lower()]
    assert words, "the form says where secrets go"
    assert all("when no keyring works" in text for text in words), [t for t in words if "no keyring" not in t]


def test_a_tool_description_shows_code_spans_as_code_and_server_html_as_text(qtbot: QtBot) -> None:
    tool = {"name": "read_file", "description": "Reads `path` (see <b>docs</b>).", "inputSchema": {"type": "object"}}
    card = ToolCard(tool_info(tool), enabled=True, auto=False)
    qtbot.addWidget(card)
    card.resize(600, card.sizeHint().height())
    card.show()
    card.grab().save("/tmp/p32d/tool_card_code.png")
    labels = [label for label in card.findChildren(QLabel) if "path" in label.text()]
    assert len(labels) == 1
    assert labels[0].textFormat() == Qt.TextFormat.RichText
    assert labels[0].text() == "Reads <code>path</code> (see &lt;b&gt;docs&lt;/b&gt;)."
