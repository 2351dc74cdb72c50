"""Issue 34: the Activity page's task list: a task's states as they come, Cancel for a running one, and the
list filled again from the pool when it opens anew (the tasks the pool followed stay listed)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.dialogs.try_tool_dialog import TryToolDialog
from elftia_desktop.ui.widgets.task_list import TaskList
from tests.helpers.live_router import add_servers, server_input

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


def try_tool(router: McpRouter, server_id: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """Call through the Try dialog's route; the box gets ``ok`` or ``error``."""
    box: dict[str, Any] = {}
    router.explore.try_tool(server_id, tool, args).then(
        router.signals, lambda r: box.setdefault("ok", r), lambda e: box.setdefault("error", e)
    )
    return box


def cells(tasks: TaskList) -> list[list[str]]:
    """The table's text, row by row."""
    table = tasks.table
    return [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]  # type: ignore[union-attr]


def test_a_task_shows_its_states_and_cancel_stops_it(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    (record,) = add_servers(server_input("tasked", "tasks"))
    tasks = TaskList(router)
    qtbot.addWidget(tasks)
    tasks.resize(760, 260)
    tasks.show()
    assert tasks.empty.isVisible() and not tasks.table.isVisible()
    done = try_tool(router, record.id, "count_steps", {"steps": 2})
    qtbot.waitUntil(lambda: "ok" in done, timeout=WAIT)
    waiting = try_tool(router, record.id, "wait_for_file", {"path": str(tmp_path / "never")})
    qtbot.waitUntil(lambda: len(cells(tasks)) == 2 and cells(tasks)[0][3] == "waiting for the file", timeout=WAIT)
    assert cells(tasks)[0][:3] == ["tasked", "wait_for_file", "working"]
    assert cells(tasks)[1][:4] == ["tasked", "count_steps", "completed", "counted 2 steps"]
    tasks.table.selectRow(1)
    assert not tasks.cancel_button.isEnabled()  # an ended task has nothing to cancel
    tasks.table.selectRow(0)
    assert tasks.cancel_button.isEnabled()
    if os.environ.get("ELFTIA_SHOT_DIR"):
        tasks.grab().save(str(Path(os.environ["ELFTIA_SHOT_DIR"]) / "task_list.png"))
    qtbot.mouseClick(tasks.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: cells(tasks)[0][2] == "cancelled", timeout=WAIT)
    qtbot.waitUntil(lambda: "error" in waiting, timeout=WAIT)
    assert "was cancelled" in str(waiting["error"])

    again = TaskList(router)  # the page opened anew: the pool's book fills it
    qtbot.addWidget(again)
    qtbot.waitUntil(lambda: len(cells(again)) == 2, timeout=WAIT)
    assert [row[2] for row in cells(again)] == ["cancelled", "completed"]


def test_the_try_dialog_shows_its_task_and_closing_it_leaves_the_task_running(
    qtbot: QtBot, router: McpRouter, tmp_path: Path
) -> None:
    (record,) = add_servers(server_input("tasked", "tasks"))
    flag = tmp_path / "flag"
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    dialog = TryToolDialog(router, record.id, {"name": "wait_for_file", "inputSchema": schema}, "tasked")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.form.set_value({"path": str(flag)})
    dialog.call()
    qtbot.waitUntil(lambda: dialog.progress.format() == "task working: waiting for the file", timeout=WAIT)
    assert dialog.task_watch.running and dialog.status.text() == (
        "Task working: waiting for the file. Closing this window leaves it running (see Activity)."
    )
    if os.environ.get("ELFTIA_SHOT_DIR"):
        dialog.grab().save(str(Path(os.environ["ELFTIA_SHOT_DIR"]) / "try_task.png"))
    dialog.accept()  # closed: the task goes on in the pool
    tasks = TaskList(router)
    qtbot.addWidget(tasks)
    qtbot.waitUntil(lambda: len(cells(tasks)) == 1, timeout=WAIT)
    assert cells(tasks)[0][2] == "working"
    flag.write_text("here", encoding="utf-8")
    qtbot.waitUntil(lambda: cells(tasks)[0][2:4] == ["completed", "the file is there"], timeout=WAIT)


def test_the_try_dialogs_cancel_cancels_its_task_upstream(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    (record,) = add_servers(server_input("tasked", "tasks"))
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    dialog = TryToolDialog(router, record.id, {"name": "wait_for_file", "inputSchema": schema}, "tasked")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.form.set_value({"path": str(tmp_path / "never")})
    dialog.call()
    qtbot.waitUntil(lambda: dialog.task_watch.running, timeout=WAIT)
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT)
    assert dialog.task_watch.task is not None and dialog.task_watch.task.status == "cancelled"
    tasks = TaskList(router)
    qtbot.addWidget(tasks)
    qtbot.waitUntil(lambda: len(cells(tasks)) == 1, timeout=WAIT)
    assert cells(tasks)[0][2:4] == ["cancelled", "cancelled by Elftia"]
