"""Issue 34 (Apps): the Try dialog renders a tool's ``ui://`` view in QtWebEngine and hosts its dialect.

Against the real ``app_view`` server (in memory: the ``marker`` fixture): the view renders under its own
origin and policy, its call of an app-only tool reaches the server (the server's marker file), a call
that needs approval is asked first, a link opens only after the user agreed, and the resource's CSP
blocks a domain it does not list.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMainWindow
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.bridge.signals import ApprovalQuestion
from elftia_desktop.core.approvals import Answer
from elftia_desktop.ui.apps.pane import AppPane
from elftia_desktop.ui.dialogs.try_history import TryHistory
from elftia_desktop.ui.dialogs.try_tool_dialog import TryToolDialog
from elftia_desktop.ui.probe import AppProbe
from elftia_desktop.ui.theme import apply_theme
from tests.servers import app_view
from tests.ui.apps_helpers import FORECAST, forecast_server

pytest.importorskip("PySide6.QtWebEngineWidgets", reason="the view needs the apps extra (PySide6-Addons)")
pytestmark = pytest.mark.timeout(180)
WAIT = 60_000


@pytest.fixture
def marker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_servers: list[str]) -> Path:
    """The file the app_view server (in memory) writes its app-only tools' calls to."""
    path = tmp_path / "marker.txt"
    monkeypatch.setenv("ELFTIA_APP_MARKER", str(path))
    return path


@pytest.fixture
def dialog(qtbot: QtBot, router: McpRouter, marker: Path) -> Iterator[TryToolDialog]:
    """The Try dialog of ``forecast``, its App tab shown, the view loaded and initialized."""
    apply_theme(QApplication.instance())  # type: ignore[arg-type]
    record = forecast_server(None)
    dialog = TryToolDialog(router, record.id, FORECAST, record.name, history=TryHistory())
    qtbot.addWidget(dialog)
    assert dialog.app_pane is not None
    dialog.side.setCurrentWidget(dialog.app_pane)
    dialog.show()
    qtbot.waitUntil(lambda: initialized(pane_of(dialog)), timeout=WAIT)
    yield dialog
    dialog.reject()


def initialized(pane: AppPane) -> bool:
    return pane.dialect is not None and pane.dialect.initialized


def pane_of(dialog: TryToolDialog) -> AppPane:
    assert dialog.app_pane is not None
    return dialog.app_pane


def until_view(qtbot: QtBot, dialog: TryToolDialog, expression: str, wanted: Callable[[Any], bool]) -> Any:
    """Evaluate ``expression`` in the app's own frame until its value satisfies ``wanted``; that value."""
    seen: list[Any] = []

    def check() -> bool:
        frame = pane_of(dialog).frame
        children = frame.page().mainFrame().children() if frame is not None else []
        if children:  # null until the document has what the expression reads
            script = f"(() => {{ try {{ return JSON.stringify({expression}); }} catch (e) {{ return 'null'; }} }})()"
            children[0].runJavaScript(script, 0, lambda text: seen.append(json.loads(text or "null")))
        return bool(seen) and seen[-1] is not None and wanted(seen[-1])

    qtbot.waitUntil(check, timeout=WAIT)
    return seen[-1]


def text_of(element: str) -> str:
    return f"document.getElementById('{element}').textContent"


def click(qtbot: QtBot, dialog: TryToolDialog, element: str) -> None:
    """Click a button of the view, once."""
    frame = pane_of(dialog).frame
    assert frame is not None
    clicked: list[Any] = []
    (view,) = frame.page().mainFrame().children()
    view.runJavaScript(f"document.getElementById('{element}').click(); 1", 0, clicked.append)
    qtbot.waitUntil(lambda: clicked == [1], timeout=WAIT)


def test_the_view_renders_calls_its_server_and_gets_the_result(
    qtbot: QtBot, dialog: TryToolDialog, marker: Path, tmp_path: Path
) -> None:
    until_view(qtbot, dialog, text_of("refresh"), lambda text: text == "refreshed Paris")
    assert marker.read_text().splitlines() == ["refresh_view Paris"], "the view's call on load reached the server"
    report = until_view(qtbot, dialog, "window.report", lambda r: isinstance(r, dict))
    assert report["bridge"] == "undefined", "no web channel in the app's world"
    assert report["storage"] == "denied", "an opaque origin: no storage"
    assert report["host"] == "elftia-desktop" and report["theme"] in ("light", "dark")
    background = until_view(
        qtbot, dialog, "getComputedStyle(document.body).backgroundColor", lambda c: isinstance(c, str)
    )
    assert background != "rgb(255, 255, 255)" or report["theme"] == "light"
    height = until_view(qtbot, dialog, "document.body.scrollHeight", lambda h: isinstance(h, int | float))
    frame = pane_of(dialog).frame
    assert frame is not None and frame.minimumHeight() == max(int(height), 120), "size-changed resized the frame"

    dialog.form.set_value({"city": "Oslo"})
    dialog.call()
    until_view(qtbot, dialog, text_of("input"), lambda text: text == '{"city":"Oslo"}')
    until_view(qtbot, dialog, text_of("result"), lambda text: "sunny" in text)
    dialog.side.setCurrentWidget(pane_of(dialog))
    dialog.grab().save(str(tmp_path / "try-app-view.png"))


def test_a_call_made_before_the_tab_shows_reaches_the_view(qtbot: QtBot, router: McpRouter, marker: Path) -> None:
    record = forecast_server(None)
    dialog = TryToolDialog(router, record.id, FORECAST, record.name, history=TryHistory())
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.form.set_value({"city": "Lima"})
    dialog.call()
    qtbot.waitUntil(lambda: dialog.last_response is not None, timeout=WAIT)
    assert pane_of(dialog).frame is None, "the view starts only when its tab shows"
    dialog.side.setCurrentWidget(pane_of(dialog))
    until_view(qtbot, dialog, text_of("input"), lambda text: text == '{"city":"Lima"}')
    until_view(qtbot, dialog, text_of("result"), lambda text: "sunny" in text)
    dialog.reject()


def test_a_call_from_the_view_that_needs_approval_is_asked_first(
    qtbot: QtBot, router: McpRouter, dialog: TryToolDialog, marker: Path
) -> None:
    until_view(qtbot, dialog, text_of("refresh"), lambda text: text == "refreshed Paris")
    questions: list[ApprovalQuestion] = []
    answers = [Answer.DENY, Answer.ONCE]

    def answer(question: ApprovalQuestion) -> None:
        questions.append(question)
        router.answer_approval(question.ticket, answers[len(questions) - 1])

    router.signals.approvalRequested.connect(answer)
    try:
        click(qtbot, dialog, "save")
        until_view(qtbot, dialog, text_of("note"), lambda text: text.startswith("error:"))
        assert [q.request.tool_name for q in questions] == ["save_note"]
        assert "save_note" not in marker.read_text(), "a denied call never reached the server"
        click(qtbot, dialog, "save")
        until_view(qtbot, dialog, text_of("note"), lambda text: text == "saved from the view")
        assert len(questions) == 2 and marker.read_text().splitlines()[-1] == "save_note from the view"
    finally:
        router.signals.approvalRequested.disconnect(answer)


class _Browser(QObject):
    """Stands in for the desktop's browser (``QDesktopServices.setUrlHandler``): records what it is asked to open."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.opened.append(url.toString())


def test_a_link_opens_only_after_consent(qtbot: QtBot, dialog: TryToolDialog) -> None:
    browser = _Browser()
    QDesktopServices.setUrlHandler("https", browser, "open")  # type: ignore[arg-type]  # PySide takes the str
    try:
        pane = pane_of(dialog)
        click(qtbot, dialog, "open")
        qtbot.waitUntil(lambda: pane.link_question is not None and pane.link_question.isVisible(), timeout=WAIT)
        question = pane.link_question
        assert question is not None and "docs.example.org" in question.text()
        assert browser.opened == [], "nothing opens while the user has not answered"
        next(b for b in question.buttons() if b.text() == "Don't open").click()
        until_view(qtbot, dialog, text_of("link"), lambda text: text.startswith("not opened: Link opening denied"))
        assert browser.opened == []

        click(qtbot, dialog, "open")
        qtbot.waitUntil(lambda: pane.link_question is not question and pane.link_question is not None, timeout=WAIT)
        assert pane.link_question is not None
        next(b for b in pane.link_question.buttons() if b.text() == "Open in browser").click()
        until_view(qtbot, dialog, text_of("link"), lambda text: text == "opened")
        assert browser.opened == [app_view.LINK]
    finally:
        QDesktopServices.unsetUrlHandler("https")


def test_the_resources_csp_blocks_a_domain_it_does_not_list(qtbot: QtBot, dialog: TryToolDialog) -> None:
    click(qtbot, dialog, "fetch")
    until_view(qtbot, dialog, text_of("net"), lambda text: text.count("failed") + text.count(" ok") == 2)
    violations = until_view(qtbot, dialog, "window.report.violations", lambda v: isinstance(v, list))
    assert violations == [f"connect-src {app_view.BLOCKED}/data"], "only the undeclared domain is blocked by CSP"


def test_without_webengine_the_tab_says_what_to_install(
    qtbot: QtBot, router: McpRouter, marker: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("elftia_desktop.ui.apps.pane.webengine_available", lambda: False)
    record = forecast_server(None)
    pane = AppPane(router, record.id, FORECAST)
    qtbot.addWidget(pane)
    pane.show()
    qtbot.waitUntil(lambda: "QtWebEngine" in pane.status.text(), timeout=WAIT)
    assert "pip install 'elftia-desktop[apps]'" in pane.status.text() and "bundle" in pane.status.text()
    assert pane.declared is not None
    shown = pane.declared.toPlainText()
    assert app_view.VIEW in shown and app_view.ALLOWED in shown and "connectDomains" in shown
    assert pane.frame is None and pane.dialect is None


def test_the_smoke_probe_runs_a_view(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    """``apps-view`` (the bundle's smoke test): a view's first message crosses the relay."""
    window = QMainWindow()
    qtbot.addWidget(window)
    probe_file = tmp_path / "probe.jsonl"
    AppProbe(window, router, probe_file)
    probe_file.with_name("probe.jsonl.cmd").write_text("apps-view\n")
    qtbot.waitUntil(lambda: probe_file.exists() and "apps-view" in probe_file.read_text(), timeout=WAIT)
    (event,) = [json.loads(line) for line in probe_file.read_text().splitlines()]
    assert event["ok"] is True and json.loads(event["message"])["method"] == "ui/notifications/initialized"
