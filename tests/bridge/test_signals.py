"""Router signals: results, busy state and service events arrive on the UI thread; events are wired once."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QObject
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.bridge.service_loop import ServiceLoop
from elftia_desktop.bridge.services import AppServices
from elftia_desktop.bridge.signals import ToolCalled
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.server_update import McpServerUpdate
from tests.helpers.live_router import add_servers, server_input
from tests.helpers.signals import emission

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


def test_finished_and_busy_follow_each_request(qtbot: QtBot, router: McpRouter) -> None:
    busy: list[bool] = []
    router.signals.busyChanged.connect(busy.append)
    with qtbot.waitSignal(router.signals.finished, timeout=WAIT) as finished:
        request_id = router.servers.records().request_id
    assert finished.args is not None
    assert finished.args[:2] == [request_id, "mcp:list"] and finished.args[2] == []
    assert busy == [True, False]


def test_service_events_arrive_as_typed_signals(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("basic"))
    states: list[str] = []
    called: list[ToolCalled] = []
    router.signals.connectionStateChanged.connect(lambda e: e.server_id == record.id and states.append(e.state))
    router.signals.toolCalled.connect(called.append)
    owner = QObject()
    results: list[Any] = []
    router.tools.call(record.id, "echo", {"text": "hi"}).then(owner, results.append)
    qtbot.waitUntil(lambda: bool(results) and bool(called), timeout=WAIT)
    assert results[0].content[0]["text"] == "hi"
    assert states[:2] == ["connecting", "connected"]
    assert (called[0].server_id, called[0].tool_name, called[0].outcome) == (record.id, "echo", "ok")
    assert router.activity.last(record.id) == called[0]

    with emission(qtbot, router.signals.serversChanged):
        router.servers.update(record.id, McpServerUpdate(name="renamed"))


def test_events_are_wired_once(qtbot: QtBot, live: tuple[McpRouter, ServiceLoop[AppServices]]) -> None:
    router, _loop = live
    (record,) = add_servers(server_input("basic"))
    owner = QObject()
    done: list[Any] = []
    for _ in range(3):
        router.servers.records().then(owner, done.append)
    router.tools.call(record.id, "echo", {"text": "once"}).then(owner, done.append)
    called: list[ToolCalled] = []
    router.signals.toolCalled.connect(called.append)
    qtbot.waitUntil(lambda: len(done) == 4 and bool(called), timeout=WAIT)
    assert router.events.wired == 1
    assert len(called) == 1, "one service event, one signal"
    records: list[list[McpServerRecord]] = []
    router.servers.records().then(owner, records.append)
    qtbot.waitUntil(lambda: bool(records), timeout=WAIT)
    assert router.events.wired == 1
