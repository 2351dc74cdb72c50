"""Router requests: typed parameters validated before anything runs, typed results, one receiver per request."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QObject
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.errors import BridgeError, ErrorCategory
from elftia_desktop.bridge.results import LaunchInfo
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.bridge.service_loop import ServiceLoop
from elftia_desktop.bridge.services import AppServices
from elftia_desktop.core.models import McpActionResult
from elftia_desktop.core.server_update import McpServerUpdate
from tests.helpers.live_router import server_input

WAIT = 30_000
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


def test_invalid_requests_are_refused_without_running(
    qtbot: QtBot, live: tuple[McpRouter, ServiceLoop[AppServices]]
) -> None:
    router, loop = live
    owner = QObject()
    errors: list[BridgeError] = []
    failed: list[tuple[int, str]] = []
    router.signals.failed.connect(lambda request_id, channel, _e: failed.append((request_id, channel)))
    requests = [
        router.servers.update("", McpServerUpdate(name="x")).then(owner, on_error=errors.append),
        router.tools.call("", "echo").then(owner, on_error=errors.append),
        router.explore.read_resource("s", "").then(owner, on_error=errors.append),
        router.tools.set_flag("s", "echo", "sometimes", True).then(owner, on_error=errors.append),  # type: ignore[arg-type]
        router.agents.add({"name": "A", "mcpMode": "sometimes"}).then(owner, on_error=errors.append),
        router.settings.export_backup("").then(owner, on_error=errors.append),
    ]
    qtbot.waitUntil(lambda: len(errors) == len(requests), timeout=WAIT)
    assert {e.category for e in errors} == {ErrorCategory.INVALID_INPUT}
    assert all(e.kind == "InvalidParameters" and e.message for e in errors)
    assert "id" in errors[0].message and "mcpMode" in errors[4].message and "path" in errors[5].message
    assert [i for i, _ in failed] == [r.request_id for r in requests] and failed[1][1] == "mcp:call-tool"
    assert not loop.built, "a refused request never reaches the service loop"


def test_one_receiver_per_request(qtbot: QtBot, router: McpRouter) -> None:
    owner = QObject()
    records: list[Any] = []
    pending = router.servers.records().then(owner, records.append)
    with pytest.raises(RuntimeError, match="mcp:list: then\\(\\) was already called"):
        pending.then(owner, records.append)
    qtbot.waitUntil(lambda: bool(records), timeout=WAIT)
    assert records == [[]], "the first receiver's callback ran, once"


def test_results_are_typed(qtbot: QtBot, router: McpRouter) -> None:
    owner = QObject()
    box: dict[str, Any] = {}
    router.servers.add(server_input("imported", trusted=False)).then(owner, lambda r: box.setdefault("added", r))
    qtbot.waitUntil(lambda: "added" in box, timeout=WAIT)
    added = box["added"]
    assert isinstance(added, McpActionResult) and added.server is not None
    router.servers.launch_info(added.server.id).then(owner, lambda i: box.setdefault("info", i))
    qtbot.waitUntil(lambda: "info" in box, timeout=WAIT)
    info = box["info"]
    assert isinstance(info, LaunchInfo) and info.needs_confirmation and info.name == "imported"
    assert ("Transport", "stdio") in info.rows and info.changes == []


def test_a_typed_error_carries_its_category(qtbot: QtBot, router: McpRouter) -> None:
    owner = QObject()
    errors: list[BridgeError] = []
    router.servers.test("no-such-server").then(owner, on_error=errors.append)
    qtbot.waitUntil(lambda: bool(errors), timeout=WAIT)
    assert errors[0].kind == "ServerNotFound" and errors[0].category is ErrorCategory.CONFIG
