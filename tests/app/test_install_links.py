"""Issue 15: one instance per data folder, and install links open the add form filled in, untrusted."""

from __future__ import annotations

import socket
import sys
import uuid
from pathlib import Path

import pytest
from PySide6.QtCore import QDir, QSettings, QUrl
from PySide6.QtGui import QFileOpenEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.install_link import make_install_link
from elftia_desktop.ui.dialogs.server_form import McpServerForm
from elftia_desktop.ui.main_window import MainWindow
from elftia_desktop.ui.single_instance import SingleInstance, instance_name

WAIT = 30_000
ENTRY = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"MEMORY_FILE": "/tmp/m"}}


def open_window(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> MainWindow:
    window = MainWindow(router, QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def link_form() -> McpServerForm | None:
    forms = [w for w in QApplication.topLevelWidgets() if isinstance(w, McpServerForm) and w.isVisible()]
    return forms[0] if len(forms) == 1 else None


def test_a_later_start_hands_its_arguments_to_the_running_app(qtbot: QtBot) -> None:
    name = f"elftia-test-{uuid.uuid4().hex[:12]}"
    app = QApplication.instance()
    running = SingleInstance(name, app)
    assert running.listen()
    later = SingleInstance(name, app)
    with qtbot.waitSignal(running.argumentsReceived, timeout=WAIT) as received:
        assert later.hand_over(["elftia://install-mcp?config=e30", "--flag"])
    assert received.args == [["elftia://install-mcp?config=e30", "--flag"]]
    assert running.server is not None
    running.server.close()
    assert SingleInstance(name, app).hand_over([]) is False  # nobody listens any more: this start becomes the app


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes leave no file behind")
def test_a_socket_left_by_a_crashed_run_is_replaced(qtbot: QtBot) -> None:
    name = f"elftia-test-{uuid.uuid4().hex[:12]}"
    path = Path(QDir.tempPath()) / name
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))  # the file a killed app leaves: nobody accepts on it
    stale.close()
    try:
        assert SingleInstance(name).hand_over(["x"]) is False
        app = SingleInstance(name, QApplication.instance())
        assert app.listen()
        with qtbot.waitSignal(app.argumentsReceived, timeout=WAIT) as received:
            assert SingleInstance(name).hand_over(["y"])
        assert received.args == [["y"]]
        assert app.server is not None
        app.server.close()
    finally:
        path.unlink(missing_ok=True)


def test_a_url_the_system_opens_is_handed_on(qtbot: QtBot) -> None:
    running = SingleInstance(f"elftia-test-{uuid.uuid4().hex[:12]}", QApplication.instance())
    assert running.listen(watch_file_open=True)
    link = "elftia://install-mcp?name=a&config=e30"
    with qtbot.waitSignal(running.argumentsReceived, timeout=WAIT) as received:
        QApplication.sendEvent(QApplication.instance(), QFileOpenEvent(QUrl(link)))
    assert received.args == [[link]]
    assert running.server is not None
    running.server.close()
    QApplication.instance().removeEventFilter(running)


def test_instance_names_differ_per_data_folder() -> None:
    assert instance_name("/a") != instance_name("/b")
    assert instance_name("/a") == instance_name("/a")


def test_link_opens_the_add_form_filled_in_and_saves_untrusted(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    window = open_window(qtbot, router, tmp_path)
    window.handle_arguments(["--ignored", make_install_link("memory", ENTRY)])
    qtbot.waitUntil(lambda: link_form() is not None, timeout=WAIT)
    form = link_form()
    assert form is not None
    assert form.windowTitle() == "Add MCP server from a link"
    assert form.ui.link_notice.isVisible() and "install link" in form.ui.link_notice.label.text()
    assert not form.ui.test.isEnabled()  # nothing runs before the user confirms
    params = form.draft().as_json()
    assert params["isTrusted"] is False and params["installSource"] == "protocol"
    assert params["config"] == {"command": "npx", "args": ENTRY["args"], "env": ENTRY["env"]}
    assert form.ui.save.isEnabled()
    with qtbot.waitSignal(form.saved, timeout=WAIT) as saved:
        form.ui.save.click()
    record = saved.args[0].server
    assert (record.name, record.is_trusted, record.install_source) == ("memory", False, "protocol")
    states: list[dict[str, tuple[str, str]]] = []
    router.servers.states().then(router.signals, states.append)
    qtbot.waitUntil(lambda: bool(states), timeout=WAIT)
    assert states[0].get(record.id, ("disconnected", ""))[0] == "disconnected"  # saved, not started


def test_malformed_link_says_what_is_wrong_on_the_page(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    window = open_window(qtbot, router, tmp_path)
    window.handle_arguments(["elftia://install-mcp?name=x&config=%%%"])
    notice = window.servers_page.notice
    qtbot.waitUntil(notice.isVisible, timeout=WAIT)
    assert "The install link could not be opened" in notice.label.text()
    assert "neither JSON nor base64url" in notice.label.text()
    assert link_form() is None
