"""Issue 32: the window asks before a tool that is not auto-approved runs (Try), and Discover's switches
show and set the same state as the CLI. A real router over real services; the approvals server in memory
(the ``memory_servers`` seam)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.pool_host import WindowPool
from elftia_desktop.bridge.results_explore import ToolInfo
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.bridge.service_loop import ServiceLoop
from elftia_desktop.bridge.services import AppServices, build_services
from elftia_desktop.bridge.signals import ApprovalQuestion
from elftia_desktop.core.approvals import Answer
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.ui.dialogs.approval_dialog import ApprovalDialog, ask_approval
from elftia_desktop.ui.dialogs.discover_dialog import DiscoverDialog
from elftia_desktop.ui.dialogs.try_history import TryHistory
from elftia_desktop.ui.dialogs.try_tool_dialog import TryToolDialog
from tests.helpers.live_router import add_servers, live_router, server_input
from tests.helpers.pretend_app import PretendApp

WAIT = 30_000
pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("memory_servers")]


@pytest.fixture
def router() -> Iterator[McpRouter]:
    """A router over real services; the config starts empty."""
    ConfigStore().mutate(lambda records: None)
    with live_router() as (router, _loop):
        yield router


@pytest.fixture
def notes() -> McpServerRecord:
    (record,) = add_servers(server_input("notes", "approvals"))
    return record


def discovered(qtbot: QtBot, router: McpRouter, record: McpServerRecord) -> DiscoverDialog:
    dialog = DiscoverDialog(router, record)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.discovered is not None, timeout=WAIT)
    return dialog


def try_dialog(
    qtbot: QtBot, router: McpRouter, record: McpServerRecord, tools: Sequence[ToolInfo], name: str
) -> TryToolDialog:
    tool = next(t for t in tools if t.name == name)
    dialog = TryToolDialog(router, record.id, tool.definition, record.name, history=TryHistory())
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def asked(qtbot: QtBot) -> ApprovalDialog:
    """The approval dialog, once it is open."""
    found: list[ApprovalDialog] = []

    def opened() -> bool:
        found[:] = [w for w in QApplication.topLevelWidgets() if isinstance(w, ApprovalDialog) and w.isVisible()]
        return bool(found)

    qtbot.waitUntil(opened, timeout=WAIT)
    return found[0]


def test_try_confirms_and_each_answer_counts(qtbot: QtBot, router: McpRouter, notes: McpServerRecord) -> None:
    discover = discovered(qtbot, router, notes)
    assert discover.discovered is not None
    dialog = try_dialog(qtbot, router, notes, discover.discovered.tools, "delete_note")
    router.signals.approvalRequested.connect(lambda q: ask_approval(router, q, dialog))
    editor = dialog.form.field("key").editor  # type: ignore[attr-defined]
    qtbot.keyClicks(editor, "a")
    questions: list[ApprovalQuestion] = []
    router.signals.approvalRequested.connect(questions.append)

    qtbot.mouseClick(dialog.call_button, Qt.MouseButton.LeftButton)
    confirm = asked(qtbot)
    assert confirm.windowTitle() == "Allow this tool to run?" and confirm.parent() is dialog
    assert (
        confirm.hints_label.text()
        == "The server says it may change things, may delete or overwrite, stays within its own data."
    )
    assert '"key": "a"' in confirm.arguments.toPlainText()
    qtbot.mouseClick(confirm.once_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result_view.outcome == "ok", timeout=WAIT)
    assert dialog.last_response is not None and dialog.last_response.content[0]["text"] == "deleted a"

    qtbot.mouseClick(dialog.call_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(asked(qtbot).deny_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.history_list.count() == 2, timeout=WAIT)
    assert dialog.last_response is not None and dialog.last_response.is_error
    assert dialog.last_response.content[0]["text"] == 'The user denied the call of "delete_note" of notes.'

    qtbot.mouseClick(dialog.call_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(asked(qtbot).always_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.history_list.count() == 3, timeout=WAIT)
    assert ServerCatalog(ConfigStore(), SecretVault()).get(notes.id).auto_approved_tools == ["delete_note"]
    qtbot.mouseClick(dialog.call_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.history_list.count() == 4, timeout=WAIT)
    assert dialog.last_response is not None and dialog.last_response.content[0]["text"] == "deleted a"
    assert len(questions) == 3  # "always": not asked the fourth time


def test_discover_switches_show_the_defaults_and_set_the_state(
    qtbot: QtBot, router: McpRouter, notes: McpServerRecord
) -> None:
    dialog = discovered(qtbot, router, notes)
    shown = {name: card.auto.isChecked() for name, card in dialog.cards.items()}
    assert shown == {"read_note": True, "ran": True, "delete_note": False, "post_note": False, "plain": False}
    dialog.cards["plain"].auto.setChecked(True)
    dialog.cards["read_note"].auto.setChecked(False)
    catalog = ServerCatalog(ConfigStore(), SecretVault())
    qtbot.waitUntil(lambda: catalog.get(notes.id).disabled_auto_approve_tools == ["read_note"], timeout=WAIT)
    assert catalog.get(notes.id).auto_approved_tools == ["plain"]


async def _close(services: AppServices) -> None:
    await services.close()


@pytest.mark.daemon
def test_the_window_hosting_the_pool_asks_for_an_app_that_cannot(
    qtbot: QtBot, notes: McpServerRecord, isolated_data_dir: Path
) -> None:
    pool = WindowPool()
    loop: ServiceLoop[AppServices] = ServiceLoop(lambda: build_services(pool))
    loop.start()
    router = McpRouter(loop, pool=pool)
    app: PretendApp | None = None
    try:
        with qtbot.waitSignal(router.signals.poolChanged, timeout=WAIT, check_params_cb=lambda s: s.hosting):
            router.pool.refresh()
        questions: list[ApprovalQuestion] = []
        router.signals.approvalRequested.connect(questions.append)
        app = PretendApp(isolated_data_dir, "Claude Code")  # declares no elicitation
        app.send_call("notes__delete_note", {"key": "k"})
        qtbot.waitUntil(lambda: bool(questions), timeout=WAIT)
        request = questions[0].request
        assert (request.server_name, request.tool_name, request.arguments) == ("notes", "delete_note", {"key": "k"})
        router.answer_approval(questions[0].ticket, Answer.ONCE)
        assert app.answer() == "RESULT deleted k"
        app.send_call("notes__plain", {})
        qtbot.waitUntil(lambda: len(questions) == 2, timeout=WAIT)
        router.answer_approval(questions[1].ticket, Answer.DENY)
        assert app.answer() == 'ERROR The user denied the call of "plain" of notes.'
    finally:
        if app is not None:
            app.close()
        loop.stop(cleanup=_close, timeout=30)
