"""Issue 10: the Activity of a server (recent calls, chart, card sparkline) from real tool calls."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QColor
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.activity import PER_SERVER, ActivityLog
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.bridge.signals import ToolCalled
from elftia_desktop.ui.dialogs.discover_activity import ActivityDialog, ActivityPanel
from elftia_desktop.ui.pages.servers_page import McpServersPage
from elftia_desktop.ui.theme import ACCENT, STATE_COLORS
from elftia_desktop.ui.widgets.activity_chart import ActivityChart, bucket_calls
from tests.helpers.live_router import add_servers, server_input

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


def try_tool(qtbot: QtBot, router: McpRouter, server_id: str, tool: str, args: dict[str, Any], n: int) -> Any:
    box: dict[str, Any] = {}
    router.explore.try_tool(server_id, tool, args).then(
        router.signals, lambda r: box.setdefault("ok", r), lambda e: box.setdefault("error", e)
    )
    qtbot.waitUntil(lambda: bool(box), timeout=WAIT)
    return box


def test_calls_reach_the_card_and_the_activity_dialog(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("explore", "explore"))
    page = McpServersPage(router)
    qtbot.addWidget(page)
    page.resize(1000, 600)
    page.show()
    qtbot.waitUntil(lambda: record.id in page.cards, timeout=WAIT)
    card = page.cards[record.id]
    assert not card.sparkline.isVisible() and not card.last_call.isVisible()
    assert "ok" in try_tool(qtbot, router, record.id, "picture", {}, 1)
    assert "ok" in try_tool(qtbot, router, record.id, "count", {"steps": 2, "delay": 0.01}, 2)
    assert try_tool(qtbot, router, record.id, "refuse", {"reason": "no"}, 3)["ok"].response.is_error
    qtbot.waitUntil(lambda: len(router.activity.calls(record.id)) == 3, timeout=WAIT)
    calls = router.activity.calls(record.id)
    assert [(c.tool_name, c.outcome) for c in calls] == [("picture", "ok"), ("count", "ok"), ("refuse", "error")]
    assert all(c.duration_ms > 0 and c.at > 0 for c in calls)
    assert card.sparkline.isVisible() and len(card.sparkline.calls) == 3
    assert "refuse" in card.last_call.text() and "error" in card.last_call.text()
    assert "1 of 3 not OK" in card.sparkline.toolTip()

    card.last_call.linkActivated.emit("activity")
    qtbot.waitUntil(lambda: bool(page.findChildren(ActivityDialog)), timeout=WAIT)
    (dialog,) = page.findChildren(ActivityDialog)
    panel = dialog.panel
    rows = [[panel.table.topLevelItem(i).text(c) for c in range(1, 4)] for i in range(panel.table.topLevelItemCount())]
    assert [(r[0], r[2]) for r in rows] == [("refuse", "Tool error"), ("count", "OK"), ("picture", "OK")]
    assert panel.summary.text().startswith("3 calls  ·  1 not OK  ·  median ")
    assert {panel.table.topLevelItem(i).text(4) for i in range(3)} == {"Elftia"}  # this app's own calls
    assert panel.chart.calls == calls
    # A new call shows up live in the open dialog and on the card.
    try_tool(qtbot, router, record.id, "picture", {}, 4)
    qtbot.waitUntil(lambda: panel.table.topLevelItemCount() == 4, timeout=WAIT)
    assert panel.table.topLevelItem(0).text(1) == "picture" and "picture" in card.last_call.text()
    dialog.close()


def _call(at: float, outcome: str = "ok", ms: float = 10.0) -> ToolCalled:
    return ToolCalled("s1", "echo", outcome, ms, at)


def test_history_is_bounded_per_server(qtbot: QtBot) -> None:
    log = ActivityLog()
    for index in range(PER_SERVER + 50):
        log.record(ToolCalled("s1", f"t{index}", "ok", 1.0, index))
    calls = log.calls("s1")
    assert len(calls) == PER_SERVER and calls[0].tool_name == "t50" and calls[-1].tool_name == f"t{PER_SERVER + 49}"
    log.record(ToolCalled("s2", "old", "failed", 5.0, 1.0))
    assert log.last("s2") == ToolCalled("s2", "old", "failed", 5.0, 1.0)
    log.forget("s1")
    assert log.calls("s1") == []


def test_chart_buckets_and_draws_calls_and_failures(qtbot: QtBot) -> None:
    now = 10_000.0
    calls = [_call(now - 300), _call(now - 290, "failed", 50), _call(now - 5, ms=30), _call(now - 1, ms=40)]
    slices, span = bucket_calls(calls, now, buckets=10)
    assert span == 300.0
    assert (slices[0].ok, slices[0].bad) == (1, 1) and slices[0].mean == 30.0
    assert (slices[-1].ok, slices[-1].bad, slices[-1].mean) == (2, 0, 35.0)
    assert sum(b.ok + b.bad for b in slices[1:-1]) == 0
    chart = ActivityChart()
    qtbot.addWidget(chart)
    chart.now = now
    chart.resize(480, 180)
    chart.set_calls(calls)
    image = chart.grab().toImage()
    colors = {image.pixelColor(x, y).name() for x in range(0, image.width(), 2) for y in range(0, image.height(), 2)}
    assert QColor(ACCENT).name() in colors and QColor(STATE_COLORS["error"]).name() in colors


def test_panel_without_calls_says_so(qtbot: QtBot) -> None:
    panel = ActivityPanel(ActivityLog(), "nobody")
    qtbot.addWidget(panel)
    assert panel.summary.text().startswith("No tool calls yet") and panel.table.topLevelItemCount() == 0


def test_the_table_names_the_app_of_each_call(qtbot: QtBot) -> None:
    log = ActivityLog()
    log.record(ToolCalled("s1", "echo", "ok", 2.0, 1.0, caller="Claude Code"))
    log.record(ToolCalled("s1", "echo", "ok", 2.0, 1.0))
    panel = ActivityPanel(log, "s1")
    qtbot.addWidget(panel)
    assert [panel.table.topLevelItem(i).text(4) for i in range(2)] == ["Elftia", "Claude Code"]
