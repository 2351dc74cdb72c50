"""Issue 10: trying a tool from the window, against the real ``explore`` test server over stdio."""

from __future__ import annotations

import json
import wave
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.results_explore import Discovery
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.ui.dialogs.try_history import TryHistory
from elftia_desktop.ui.dialogs.try_tool_dialog import TryToolDialog, open_try_tool
from elftia_desktop.ui.widgets.content_blocks import AudioWidget
from elftia_desktop.ui.widgets.result_view import ResultView
from elftia_desktop.ui.widgets.schema_form.fields import FieldWidget
from tests.helpers.live_router import add_servers, server_input, settle

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


def discover(qtbot: QtBot, router: McpRouter, record: McpServerRecord) -> Discovery:
    box: dict[str, Any] = {}
    router.servers.discover(record.id).then(
        router.signals, lambda r: box.setdefault("ok", r), lambda e: box.setdefault("e", e)
    )
    qtbot.waitUntil(lambda: bool(box), timeout=WAIT)
    assert "ok" in box, box
    return box["ok"]


@pytest.fixture
def explore(qtbot: QtBot, router: McpRouter) -> tuple[McpServerRecord, dict[str, dict[str, Any]]]:
    """The explore server, saved and trusted, and its tools by name."""
    (record,) = add_servers(server_input("explore", "explore"))
    tools = {t.name: t.definition for t in discover(qtbot, router, record).tools}
    return record, tools


def open_dialog(qtbot: QtBot, router: McpRouter, explore: Any, tool: str) -> TryToolDialog:
    record, tools = explore
    dialog = TryToolDialog(router, record.id, tools[tool], record.name, history=TryHistory())
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def type_into(qtbot: QtBot, field: FieldWidget, text: str) -> None:
    editor = field.editor  # type: ignore[attr-defined]
    editor.clear()
    qtbot.keyClicks(editor, text)


def press_call(qtbot: QtBot, dialog: TryToolDialog) -> None:
    qtbot.mouseClick(dialog.call_button, Qt.MouseButton.LeftButton)


def test_nested_object_and_array_through_the_form(qtbot: QtBot, router: McpRouter, explore: Any) -> None:
    dialog = open_dialog(qtbot, router, explore, "create_order")
    form = dialog.form
    assert form.field("priority").editor.currentText() == "normal", "the default is filled in"  # type: ignore[attr-defined]
    type_into(qtbot, form.field("customer", "name"), "Ada")
    type_into(qtbot, form.field("customer", "email"), "ada@example.com")
    type_into(qtbot, form.field("customer", "address", "street"), "Main St 1")
    type_into(qtbot, form.field("customer", "address", "city"), "Berlin")
    items = form.field("items")
    for _ in range(2):
        qtbot.mouseClick(items.add_button, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    type_into(qtbot, form.field("items", 0, "sku"), "A-1")
    type_into(qtbot, form.field("items", 1, "sku"), "B-2")
    type_into(qtbot, form.field("items", 1, "quantity"), "2")
    form.field("priority").editor.setCurrentText("high")  # type: ignore[attr-defined]
    sent = json.loads(form.json_edit.toPlainText())
    assert sent["items"] == [{"sku": "A-1", "quantity": 1}, {"sku": "B-2", "quantity": 2}], "the JSON tab follows"
    assert "note" not in sent, "an optional field left empty is not sent"
    press_call(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.result_view.outcome == "ok", timeout=WAIT)
    assert dialog.last_response is not None
    assert dialog.last_response.structured_content == {
        "customer": "Ada",
        "city": "Berlin",
        "skus": ["A-1", "B-2"],
        "units": 3,
        "priority": "high",
        "gift": False,
        "note": None,
    }
    assert "ms" in dialog.result_view.header.text() or " s" in dialog.result_view.header.text()
    assert dialog.history_list.count() == 1


def test_schema_error_next_to_its_field_and_nothing_sent(qtbot: QtBot, router: McpRouter, explore: Any) -> None:
    called: list[Any] = []
    router.signals.toolCalled.connect(called.append)
    dialog = open_dialog(qtbot, router, explore, "create_order")
    form = dialog.form
    type_into(qtbot, form.field("customer", "name"), "Ada")
    type_into(qtbot, form.field("customer", "email"), "not-an-email")
    type_into(qtbot, form.field("customer", "address", "street"), "Main St 1")
    qtbot.mouseClick(form.field("items").add_button, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    type_into(qtbot, form.field("items", 0, "sku"), "A-1")
    type_into(qtbot, form.field("items", 0, "quantity"), "0")
    press_call(qtbot, dialog)
    email = form.field("customer", "email")
    assert email.error.isVisible() and "email" in email.error.text()
    city = form.field("customer", "address", "city")
    assert city.error.isVisible() and "Required" in city.error.text()
    quantity = form.field("items", 0, "quantity")
    assert quantity.error.isVisible() and "minimum" in quantity.error.text()
    assert not form.field("customer", "name").error.isVisible()
    assert dialog.focusWidget() in (email.editor, city.editor, quantity.editor)  # type: ignore[attr-defined]
    assert "Not sent" in dialog.status.text() and not dialog.running
    settle(qtbot, router)
    assert called == [] and router.activity.calls(explore[0].id) == []
    # Fixing the fields clears the errors on the next try and the call goes out.
    type_into(qtbot, email, "ada@example.com")
    type_into(qtbot, city, "Berlin")
    type_into(qtbot, quantity, "3")
    press_call(qtbot, dialog)
    assert not email.error.isVisible()
    qtbot.waitUntil(lambda: dialog.result_view.outcome == "ok", timeout=WAIT)
    assert len(called) == 1


def test_progress_bar_follows_real_progress_notifications(qtbot: QtBot, router: McpRouter, explore: Any) -> None:
    dialog = open_dialog(qtbot, router, explore, "count")
    type_into(qtbot, dialog.form.field("steps"), "4")
    type_into(qtbot, dialog.form.field("delay"), "0.25")
    seen: list[tuple[int, int, str]] = []
    dialog.progress.valueChanged.connect(
        lambda v: seen.append((v, dialog.progress.maximum(), dialog.progress.format()))
    )
    press_call(qtbot, dialog)
    assert dialog.progress.isVisible() and dialog.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.result_view.outcome == "ok", timeout=WAIT)
    assert [(v, m) for v, m, _ in seen if m == 1000] == [(250, 1000), (500, 1000), (750, 1000), (1000, 1000)]
    assert [f for _, m, f in seen if m == 1000] == ["1 / 4", "2 / 4", "3 / 4", "4 / 4"]
    assert not dialog.progress.isVisible() and dialog.status.text() == "Done."


def test_cancel_a_slow_call_and_the_server_is_told(
    qtbot: QtBot, router: McpRouter, explore: Any, tmp_path: Path
) -> None:
    marker = tmp_path / "cancelled.txt"
    dialog = open_dialog(qtbot, router, explore, "count")
    type_into(qtbot, dialog.form.field("steps"), "400")
    type_into(qtbot, dialog.form.field("delay"), "0.05")
    type_into(qtbot, dialog.form.field("marker"), str(marker))
    press_call(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.progress.value() > 0, timeout=WAIT)
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result_view.outcome == "cancelled", timeout=WAIT)
    qtbot.waitUntil(marker.exists, timeout=WAIT)
    assert marker.read_text(encoding="utf-8").startswith("cancelled at ")
    assert dialog.status.text() == "Cancelled." and dialog.call_button.isEnabled()
    # the dialog is told at once; the call's tool:called event follows once the loop has ended the task
    qtbot.waitUntil(lambda: router.activity.last(explore[0].id) is not None, timeout=WAIT)
    assert router.activity.last(explore[0].id).outcome == "cancelled"  # type: ignore[union-attr]


def test_image_result_is_rendered(qtbot: QtBot, router: McpRouter, explore: Any) -> None:
    dialog = open_dialog(qtbot, router, explore, "picture")
    assert dialog.form.value() == {}
    press_call(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.result_view.outcome == "ok", timeout=WAIT)
    (block,) = dialog.result_view.blocks
    (image,) = [w for w in block.findChildren(QLabel) if w.objectName() == "ResultImage"]
    pixmap = image.pixmap()
    assert (pixmap.width(), pixmap.height()) == (160, 100)
    assert pixmap.toImage().pixelColor(159, 0).name() == "#4f6bed" and image.isVisible()
    assert any("160×100 px" in w.text() for w in block.findChildren(QLabel))


def test_error_result_attachments_and_rerun(qtbot: QtBot, router: McpRouter, explore: Any) -> None:
    dialog = open_dialog(qtbot, router, explore, "refuse")
    type_into(qtbot, dialog.form.field("reason"), "closed")
    press_call(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.result_view.outcome == "error", timeout=WAIT)
    assert "Tool error" in dialog.result_view.header.text()
    assert "border" in dialog.result_view.body.styleSheet()
    dialog.rerun(0)
    qtbot.waitUntil(lambda: dialog.history_list.count() == 2, timeout=WAIT)
    assert dialog.history_list.call_at(0).args == {"reason": "closed"}  # type: ignore[union-attr]

    links = open_dialog(qtbot, router, explore, "attachments")
    press_call(qtbot, links)
    qtbot.waitUntil(lambda: links.result_view.outcome == "ok", timeout=WAIT)
    names = [w.objectName() for w in links.result_view.blocks]
    assert names[:3] == ["ResultText", "ResourceBox", "ResourceLink"]
    link = links.result_view.blocks[2]
    assert "memo://logo" in link.label.text()  # type: ignore[attr-defined]
    qtbot.mouseClick(link.read_button, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    window = links.link_window
    assert window is not None
    view = window.findChild(ResultView)
    qtbot.waitUntil(lambda: view.outcome == "ok", timeout=WAIT)
    (box,) = view.blocks
    (image,) = [w for w in box.findChildren(QLabel) if w.objectName() == "ResultImage"]
    assert image.pixmap().width() == 24


def test_audio_is_saved_and_opened(qtbot: QtBot, router: McpRouter, explore: Any) -> None:
    dialog = open_dialog(qtbot, router, explore, "sound")
    press_call(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.result_view.outcome == "ok", timeout=WAIT)
    (audio,) = dialog.result_view.blocks
    assert isinstance(audio, AudioWidget) and "audio/wav" in audio.info.text()
    opened: list[str] = []
    audio.opener = lambda url: opened.append(url.toLocalFile())  # no player on a test machine
    qtbot.mouseClick(audio.open_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(opened), timeout=WAIT)
    with wave.open(opened[0], "rb") as saved:
        assert (saved.getframerate(), saved.getnframes()) == (8000, 1600)
    Path(opened[0]).unlink()


def test_opens_from_an_mcp_tool_of_the_tool_listing(qtbot: QtBot, router: McpRouter, explore: Any) -> None:
    """What the tool picker holds is an ``MCPTool``; the dialog takes it as it is."""
    record, _tools = explore
    box: dict[str, Any] = {}
    router.tools.of_server(record.id).then(router.signals, lambda r: box.setdefault("ok", r))
    qtbot.waitUntil(lambda: bool(box), timeout=WAIT)
    (tool,) = [t for t in box["ok"] if t.name == "refuse"]
    dialog = open_try_tool(router, record.id, tool, record.name)
    qtbot.addWidget(dialog)
    assert dialog.isVisible() and dialog.windowTitle() == "Try refuse — explore"
    assert dialog.form.field("reason").editor.text() == "not today"  # type: ignore[attr-defined]
    press_call(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.result_view.outcome == "error", timeout=WAIT)


def test_closing_the_dialog_cancels_its_running_call(
    qtbot: QtBot, router: McpRouter, explore: Any, tmp_path: Path
) -> None:
    marker = tmp_path / "closed.txt"
    dialog = open_dialog(qtbot, router, explore, "count")
    dialog.form.set_value({"steps": 400, "delay": 0.05, "marker": str(marker)})
    press_call(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.progress.value() > 0, timeout=WAIT)
    dialog.close()
    qtbot.waitUntil(marker.exists, timeout=WAIT)
    qtbot.waitUntil(lambda: router.activity.last(explore[0].id) is not None, timeout=WAIT)
    assert router.activity.last(explore[0].id).outcome == "cancelled"  # type: ignore[union-attr]
    assert dialog.history.calls(explore[0].id, "count") == [], "the closed dialog ignores the late answer"


def test_controls_keep_their_places_while_a_call_runs_and_when_a_problem_shows(
    qtbot: QtBot, router: McpRouter, explore: Any
) -> None:
    dialog = open_dialog(qtbot, router, explore, "count")

    def places() -> list[Any]:
        widgets = (dialog.call_button, dialog.cancel_button, dialog.form.tabs)
        return [(w.mapTo(dialog, w.rect().topLeft()), w.size()) for w in widgets]

    idle = places()
    dialog.form.json_edit.setPlainText('{"steps": "many"}')  # not an integer: a problem, nothing sent
    press_call(qtbot, dialog)
    assert "problem" in dialog.status.text() and dialog.form.problem.text() and places() == idle
    dialog.form.tabs.setCurrentIndex(0)
    type_into(qtbot, dialog.form.field("steps"), "400")
    type_into(qtbot, dialog.form.field("delay"), "0.05")
    press_call(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.progress.value() > 0, timeout=WAIT)
    assert places() == idle, "Cancel call must not move to where Call was"
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result_view.outcome == "cancelled", timeout=WAIT)
    assert places() == idle
