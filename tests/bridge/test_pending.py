"""``Pending[T]``: a request's own progress, its cancellation upstream, and a destroyed receiver cancelling it.

Against the real ``explore`` test server over stdio: its ``count`` tool reports progress and writes a
marker file when the client cancels it (the server saw ``notifications/cancelled``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.pending import Progress
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.ui.dialogs.try_history import TryHistory
from elftia_desktop.ui.dialogs.try_tool_dialog import TryToolDialog
from tests.helpers.live_router import add_servers, server_input

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


@pytest.fixture
def explore() -> McpServerRecord:
    (record,) = add_servers(server_input("explore", "explore"))
    return record


def count_dialog(router: McpRouter, record: McpServerRecord, parent: QWidget | None = None) -> TryToolDialog:
    schema = {
        "type": "object",
        "properties": {"steps": {"type": "integer"}, "delay": {"type": "number"}, "marker": {"type": "string"}},
    }
    tool = {"name": "count", "inputSchema": schema}
    return TryToolDialog(router, record.id, tool, parent=parent, history=TryHistory())


def test_a_destroyed_dialog_cancels_its_call_upstream(
    qtbot: QtBot, router: McpRouter, explore: McpServerRecord, tmp_path: Path
) -> None:
    """The dialog is deleted with its parent (never closed): its request is cancelled on the service loop."""
    marker = tmp_path / "destroyed.txt"
    parent = QWidget()
    dialog = count_dialog(router, explore, parent)
    dialog.form.set_value({"steps": 400, "delay": 0.05, "marker": str(marker)})
    dialog.call()
    qtbot.waitUntil(lambda: dialog.progress.value() > 0, timeout=WAIT)
    shiboken6.delete(parent)
    qtbot.waitUntil(marker.exists, timeout=WAIT)
    assert marker.read_text(encoding="utf-8").startswith("cancelled at ")
    qtbot.waitUntil(lambda: router.activity.last(explore.id) is not None, timeout=WAIT)
    assert router.activity.last(explore.id).outcome == "cancelled"  # type: ignore[union-attr]


def test_progress_of_two_concurrent_calls_reaches_only_its_own_dialog(
    qtbot: QtBot, router: McpRouter, explore: McpServerRecord
) -> None:
    three, five = count_dialog(router, explore), count_dialog(router, explore)
    for dialog in (three, five):
        qtbot.addWidget(dialog)
    formats: dict[int, list[str]] = {3: [], 5: []}
    for steps, dialog in ((3, three), (5, five)):
        dialog.progress.valueChanged.connect(lambda _v, d=dialog, n=steps: formats[n].append(d.progress.format()))
        dialog.form.set_value({"steps": steps, "delay": 0.05})
    three.call()
    five.call()
    qtbot.waitUntil(lambda: three.result_view.outcome == "ok" and five.result_view.outcome == "ok", timeout=WAIT)
    assert formats[3] == ["1 / 3", "2 / 3", "3 / 3"]
    assert formats[5] == ["1 / 5", "2 / 5", "3 / 5", "4 / 5", "5 / 5"]


def test_progress_and_outcome_may_have_different_receivers(
    qtbot: QtBot, router: McpRouter, explore: McpServerRecord
) -> None:
    """A progress receiver destroyed mid-call cancels the request as well: each receiver keeps it alive."""
    watcher, owner = QObject(), QObject()
    reports: list[Progress] = []
    errors: list[BridgeError] = []
    pending = router.explore.try_tool(explore.id, "count", {"steps": 400, "delay": 0.05})
    pending.progress(watcher, reports.append).then(owner, on_error=errors.append)
    qtbot.waitUntil(lambda: bool(reports), timeout=WAIT)
    assert reports[0] == Progress("step 1 of 400", 1.0, 400.0)
    shiboken6.delete(watcher)
    qtbot.waitUntil(lambda: bool(errors), timeout=WAIT)
    assert errors[0].cancelled and pending.cancelled and pending.finished


def test_cancel_ends_the_request_as_cancelled_and_nobody_is_told_twice(
    qtbot: QtBot, router: McpRouter, explore: McpServerRecord
) -> None:
    owner = QObject()
    outcomes: list[Any] = []
    unanswered: list[Any] = []
    failed: list[str] = []
    router.signals.unanswered.connect(lambda *args: unanswered.append(args))
    router.signals.failed.connect(lambda _id, channel, _error: failed.append(channel))
    pending = router.explore.try_tool(explore.id, "count", {"steps": 400, "delay": 0.05})
    pending.then(owner, outcomes.append, outcomes.append)
    reports: list[Progress] = []
    pending.progress(owner, reports.append)
    qtbot.waitUntil(lambda: bool(reports), timeout=WAIT)
    pending.cancel()
    pending.cancel()
    qtbot.waitUntil(lambda: bool(outcomes), timeout=WAIT)
    assert isinstance(outcomes[0], BridgeError) and outcomes[0].cancelled
    assert failed == ["mcp:try-tool"] and unanswered == []
    qtbot.waitUntil(lambda: router.activity.last(explore.id) is not None, timeout=WAIT)
    assert router.activity.last(explore.id).outcome == "cancelled"  # type: ignore[union-attr]
