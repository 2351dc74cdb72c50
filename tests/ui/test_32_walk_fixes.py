"""Issue 32: what the last walk of the real app found. The card keeps the place of its last-call line, names
its protocol in words and shows its sandbox; nothing on the servers page or the Add form moves when a text
comes or changes."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.bridge.routes import explore
from elftia_desktop.bridge.signals import ApprovalQuestion, ToolCalled
from elftia_desktop.core.approvals import Answer
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.platform.sandbox import sandbox_support
from elftia_desktop.ui.dialogs.server_form import McpServerForm
from elftia_desktop.ui.dialogs.try_history import TryHistory
from elftia_desktop.ui.dialogs.try_tool_dialog import TryToolDialog
from elftia_desktop.ui.pages.import_panel import ImportPanel
from elftia_desktop.ui.pages.servers_page import McpServersPage
from elftia_desktop.ui.theme import set_theme_mode
from elftia_desktop.ui.widgets.notice_bar import NoticeBar
from elftia_desktop.ui.widgets.server_card import ServerCard
from tests.helpers.live_router import add_servers, server_input
from tests.ui.test_server_form import PRESETS

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


def _cards(qtbot: QtBot, *records: McpServerRecord) -> tuple[QWidget, list[ServerCard]]:
    """The cards in a column, as the servers page stacks them, shown at a usual width."""
    column = QWidget()
    layout = QVBoxLayout(column)
    cards = [ServerCard(record) for record in records]
    for card in cards:
        layout.addWidget(card)
    layout.addStretch(1)
    qtbot.addWidget(column)
    column.resize(820, 700)
    column.show()
    qtbot.waitExposed(column)
    return column, cards


def _record(name: str, **fields: object) -> McpServerRecord:
    return McpServerRecord.model_validate({"name": name, "type": "stdio", "config": {"command": "npx"}, **fields})


def test_the_first_call_shows_its_line_without_moving_the_cards_below(qtbot: QtBot) -> None:
    column, (first, second) = _cards(qtbot, _record("one"), _record("two"))
    below, height = second.geometry().top(), first.height()
    assert not first.activity.isVisible()
    first.set_activity([ToolCalled(first.record.id, "echo", "ok", 12.0, 1.0)])
    qtbot.waitUntil(lambda: first.activity.isVisible())
    column.layout().activate()
    assert "last call: echo" in first.last_call.text()
    assert (second.geometry().top(), first.height()) == (below, height), "the line's place was kept"


def test_the_protocol_is_named_in_words(qtbot: QtBot) -> None:
    _column, (card,) = _cards(qtbot, _record("one"))
    card.set_protocol("2026-07-28")
    assert card.protocol.text() == "protocol 2026-07-28"
    assert "MCP protocol version" in card.protocol.toolTip() and "no handshake" in card.protocol.toolTip()
    card.set_protocol("handshake 2025-11-25")
    assert card.protocol.text() == "protocol 2025-11-25 (handshake)"
    assert "initialize handshake" in card.protocol.toolTip()
    card.set_protocol("")
    assert not card.protocol.isVisible()


def test_a_sandboxed_server_shows_a_chip_with_its_profile(qtbot: QtBot) -> None:
    sandbox = {"net": "allow", "allowNet": ["pypi.org:443"], "allowWrite": ["/srv/notes"]}
    boxed, open_, off = _record("boxed", sandbox=sandbox), _record("open"), _record("off", sandbox={"enabled": False})
    _column, (card, plain, switched_off) = _cards(qtbot, boxed, open_, off)
    assert card.sandbox_chip.isVisible()
    assert not plain.sandbox_chip.isVisible() and not switched_off.sandbox_chip.isVisible()
    tip = card.sandbox_chip.toolTip()
    if sandbox_support() is None:
        assert card.sandbox_chip.text() == "sandboxed"
        assert "May write: /srv/notes" in tip and "Network: only pypi.org:443" in tip
    else:
        assert card.sandbox_chip.text() == "no sandbox here" and "all your rights" in tip
    card.set_record(_record("boxed", sandbox=None))
    assert not card.sandbox_chip.isVisible()


@pytest.fixture
def light(qapp: QApplication) -> Iterator[QApplication]:
    """The app's light theme (its style sheet sets the buttons' padding), the system's again afterwards."""
    set_theme_mode(qapp, "light")
    yield qapp
    set_theme_mode(qapp, "system")


@pytest.mark.usefixtures("light")
def test_typing_in_the_filter_moves_nothing_in_the_header(qtbot: QtBot, router: McpRouter) -> None:
    add_servers(*(server_input(name, trusted=False) for name in ("alpha", "beta", "gamma", "delta")))
    page = McpServersPage(router)
    qtbot.addWidget(page)
    page.resize(704, 560)  # the page's part of a 900 px window
    page.show()
    qtbot.waitUntil(lambda: len(page.cards) == 4, timeout=30_000)
    header = [page.filter, *(b for b in page.findChildren(QPushButton) if b.text() in ("Paste &JSON…", "&Add server"))]
    places = [w.geometry() for w in header]
    qtbot.keyClicks(page.filter, "alp")
    QApplication.processEvents()  # the layout requests the new count posted
    assert [w.geometry() for w in header] == places and len(places) == 3
    assert page.summary.full_text == "1 of 4 shown · 0 connected"
    assert page.summary.text() == page.summary.full_text, "the count fits beside the filter"


@pytest.mark.usefixtures("light")
def test_the_form_loads_its_presets_and_the_command_keeps_its_size(qtbot: QtBot, router: McpRouter) -> None:
    form = McpServerForm(router)  # opened before the window had the presets: the form asks for them
    qtbot.addWidget(form)
    form.resize(900, 600)
    form.show()
    qtbot.waitUntil(lambda: form.ui.gallery.list.count() > 1, timeout=30_000)
    status = form.ui.dependency
    sizes = {"": form.ui.command.size()}
    for command, said in (("no-such-command-p32", "✗ not found"), (sys.executable, "✓ python")):
        form.ui.command.setText(command)
        qtbot.waitUntil(lambda said=said: status.label.full_text.startswith(said), timeout=30_000)  # type: ignore[misc]
        QApplication.processEvents()
        sizes[said] = form.ui.command.size()
    status.install.show()  # a runtime that can be installed: the button comes in the place kept for it
    QApplication.processEvents()
    sizes["Install"] = form.ui.command.size()
    assert len(set(sizes.values())) == 1, sizes
    assert form.ui.command.width() > 250, "the command keeps most of the row"
    for key, field in (("command", form.ui.command), ("cwd", form.ui.cwd)):
        label = form.ui.form.labelForField(form.ui.rows[key])
        assert label is not None
        middle = label.mapTo(form, label.rect().center()).y()
        assert abs(middle - field.mapTo(form, field.rect().center()).y()) <= 1, f"{key}: label beside its field"


@pytest.mark.usefixtures("light")
def test_choosing_a_preset_moves_no_field(qtbot: QtBot) -> None:
    form = McpServerForm(presets=PRESETS)
    qtbot.addWidget(form)
    form.resize(900, 600)
    form.show()
    qtbot.waitExposed(form)
    where = form.ui.name.mapTo(form, form.ui.name.rect().topLeft())
    assert form.ui.preset_info.text().startswith("Pick a preset")
    form.ui.gallery.choose("github")
    QApplication.processEvents()
    assert form.ui.preset_info.text().startswith("Issues and pull requests · Needs node")
    assert form.ui.name.mapTo(form, form.ui.name.rect().topLeft()) == where


@pytest.mark.usefixtures("light")
@pytest.mark.parametrize("details", ["", "the whole log"])
def test_a_one_line_notice_is_one_row_tall(qtbot: QtBot, details: str) -> None:
    page = QWidget()
    QVBoxLayout(page).setContentsMargins(24, 20, 24, 16)
    notice = NoticeBar()
    notice.float_over(page)
    qtbot.addWidget(page)
    page.resize(704, 560)
    page.show()
    notice.show_message("Echo works: 5 tools (echo, add, slow, fail, image).", "success", details)
    QApplication.processEvents()
    inner, frame = notice.layout().contentsMargins(), notice.contentsMargins()
    controls = [w for w in notice.findChildren(QPushButton) if w.isVisible()]
    row = max([notice.label.fontMetrics().lineSpacing(), *(w.height() for w in controls)])
    room = row + inner.top() + inner.bottom() + frame.top() + frame.bottom()
    assert notice.height() <= room, "no room for lines it does not have"
    assert notice.label.height() >= notice.label.fontMetrics().lineSpacing(), "the line itself is not cut"


def test_a_tried_call_is_timed_from_the_approval_on(
    qtbot: QtBot, router: McpRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Try dialog's duration is the tool's: an hour the user spends on the question is not in it."""
    (record,) = add_servers(server_input("notes", "approvals"))
    hours = [0.0]
    monkeypatch.setattr(explore, "perf_counter", lambda: time.perf_counter() + hours[0] * 3600)
    tool = {"name": "delete_note", "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}}}
    dialog = TryToolDialog(router, record.id, tool, record.name, history=TryHistory())
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.form.set_value({"key": "a"})

    def answer_an_hour_later(question: ApprovalQuestion) -> None:
        hours[0] += 1
        router.answer_approval(question.ticket, Answer.ONCE)

    router.signals.approvalRequested.connect(answer_an_hour_later)
    dialog.call()
    qtbot.waitUntil(lambda: dialog.history_list.count() == 1, timeout=30_000)
    assert hours == [1.0], "the user was asked"
    assert dialog.last_response is not None and dialog.last_response.content[0]["text"] == "deleted a"
    (tried,) = dialog.history.calls(record.id, "delete_note")
    assert tried.duration_ms is not None and tried.duration_ms < 3_600_000


@pytest.mark.usefixtures("light")
def test_a_disabled_button_looks_disabled(qtbot: QtBot, router: McpRouter) -> None:
    """The Try dialog's Cancel call, off while no call runs: no button face, greyed text."""
    tool = {"name": "echo", "inputSchema": {"type": "object"}}
    dialog = TryToolDialog(router, "no-server", tool, history=TryHistory())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    button = dialog.cancel_button

    def face() -> tuple[str, str]:
        """The colour inside the button's border, and the colour beside the button."""
        place = button.rect().translated(button.mapTo(dialog, button.rect().topLeft()))
        image = dialog.grab().toImage()
        inside = image.pixelColor(place.left() + 4, place.top() + 4).name()
        return inside, image.pixelColor(place.left() - 3, place.center().y()).name()

    assert not button.isEnabled()
    inside, beside = face()
    assert inside == beside, "a disabled button has no face of its own"
    button.setEnabled(True)
    inside, beside = face()
    assert inside != beside, "an enabled one has"


@pytest.mark.usefixtures("light")
def test_a_sandboxed_connected_card_fits_the_list_of_a_900_px_window(qtbot: QtBot) -> None:
    """Name, transport, scope, sandbox and state on one line, the protocol beside the command: no sideways scrolling
    (the list of a 900 px window is about 620 px wide)."""
    boxed = _record("Filesystem", sandbox={"net": "none"}, isTrusted=True)
    _column, (card,) = _cards(qtbot, boxed)
    card.set_state("connected")
    card.set_protocol("handshake 2025-11-25")
    card.set_tool_count(14)
    assert card.sandbox_chip.isVisible() and card.protocol.isVisible()
    assert card.minimumSizeHint().width() <= 560, card.minimumSizeHint()


def test_a_change_of_state_moves_nothing_beside_the_badge(qtbot: QtBot) -> None:
    _column, (card,) = _cards(qtbot, _record("one", isTrusted=True))
    places = set()
    for state in ("disconnected", "connecting", "connected", "error", "auth_required"):
        card.set_state(state, "why")
        QApplication.processEvents()
        places.add((card.badge.geometry().left(), card.scope_chip.geometry().left()))
    assert len(places) == 1, places


def test_no_config_found_is_said_in_the_list_not_over_the_import_button(qtbot: QtBot, router: McpRouter) -> None:
    page = ImportPanel(router, NoticeBar())
    qtbot.addWidget(page)
    page.show()
    page.show_sources([])
    assert page.sources.topLevelItemCount() == 1
    said = page.sources.topLevelItem(0)
    assert said is not None and said.text(0) == "No MCP config of another app was found on this machine."
    assert said.flags() == Qt.ItemFlag.NoItemFlags and page.checked_sources() == []
    assert not page.notice.isVisible()
