"""Callbacks belong to a receiver: when it is destroyed before the answer, they are dropped, never called."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import QObject
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import McpServerInput, McpServerRecord
from elftia_desktop.ui.dialogs.try_tool_dialog import open_try_tool
from elftia_desktop.ui.widgets.result_view import ResultView
from tests.helpers.live_router import ROOT, add_servers

WAIT = 30_000
pytestmark = pytest.mark.timeout(120)


def gated_server(gates: Path) -> McpServerRecord:
    """The ``gated`` test server: ``gate://NAME`` answers once ``gates/NAME`` exists."""
    spec = {
        "name": "gated",
        "config": {
            "command": sys.executable,
            "args": ["-m", "tests.servers.gated"],
            "cwd": str(ROOT),
            "env": {"GATE_DIR": str(gates)},
        },
        "isTrusted": True,
    }
    (record,) = add_servers(McpServerInput.model_validate(spec))
    return record


def read_failed(channel: str = "mcp:read-resource") -> Any:
    return lambda _id, name, _error: name == channel


def test_a_destroyed_receiver_cancels_its_request_and_gets_no_callback(
    qtbot: QtBot, router: McpRouter, tmp_path: Path
) -> None:
    record = gated_server(tmp_path)
    owner, keeper = QObject(), QObject()
    dropped: list[Any] = []
    kept: list[Any] = []
    unanswered: list[Any] = []
    router.signals.unanswered.connect(lambda *args: unanswered.append(args))
    router.explore.read_resource(record.id, "gate://a").then(owner, dropped.append, dropped.append)
    router.explore.read_resource(record.id, "gate://a").then(keeper, kept.append, kept.append)
    with qtbot.waitSignal(router.signals.failed, timeout=WAIT, check_params_cb=read_failed()) as failed:
        shiboken6.delete(owner)
    assert failed.args is not None and failed.args[2].cancelled
    with qtbot.waitSignal(router.signals.finished, timeout=WAIT):
        (tmp_path / "a").touch()
    qtbot.waitUntil(lambda: bool(kept), timeout=WAIT)
    assert kept[0]["contents"][0]["text"] == "gate a opened"
    assert dropped == [] and unanswered == [], "a cancellation the app made is nobody's failure to show"


def test_try_closed_during_a_link_read(
    qtbot: QtBot, router: McpRouter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: closing Try before a resource link's read returns raised "C++ object already deleted"; now
    the read is cancelled with the link window."""
    record = gated_server(tmp_path)
    shown: list[str] = []
    monkeypatch.setattr(ResultView, "show_contents", lambda _self, *_a: shown.append("contents"))
    monkeypatch.setattr(ResultView, "show_failure", lambda _self, *_a, **_k: shown.append("failure"))
    tool = {"name": "noop", "inputSchema": {"type": "object", "properties": {}}}
    dialog = open_try_tool(router, record.id, tool, record.name)
    window = dialog.read_link("gate://late")
    with qtbot.waitSignal(router.signals.failed, timeout=WAIT, check_params_cb=read_failed()) as failed:
        dialog.close()  # Try deletes itself on close, and the link window with it
    assert failed.args is not None and failed.args[2].cancelled
    assert not shiboken6.isValid(window)
    assert shown == [], "the link window is gone: no callback ran"
