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


def read_finished(channel: str = "mcp:read-resource") -> Any:
    return lambda _id, name, _result: name == channel


def test_a_destroyed_receiver_gets_no_callback(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    record = gated_server(tmp_path)
    owner, keeper = QObject(), QObject()
    dropped: list[Any] = []
    kept: list[Any] = []
    router.explore.read_resource(record.id, "gate://a", receiver=owner, on_done=dropped.append, on_error=dropped.append)
    router.explore.read_resource(record.id, "gate://a", receiver=keeper, on_done=kept.append, on_error=kept.append)
    shiboken6.delete(owner)
    with qtbot.waitSignals([router.signals.finished] * 2, timeout=WAIT):
        (tmp_path / "a").touch()
    qtbot.waitUntil(lambda: bool(kept), timeout=WAIT)
    assert kept[0]["contents"][0]["text"] == "gate a opened"
    assert dropped == []


def test_try_closed_during_a_link_read(
    qtbot: QtBot, router: McpRouter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: closing Try before a resource link's read returns raised "C++ object already deleted"."""
    record = gated_server(tmp_path)
    shown: list[str] = []
    monkeypatch.setattr(ResultView, "show_contents", lambda _self, *_a: shown.append("contents"))
    monkeypatch.setattr(ResultView, "show_failure", lambda _self, *_a, **_k: shown.append("failure"))
    tool = {"name": "noop", "inputSchema": {"type": "object", "properties": {}}}
    dialog = open_try_tool(router, record.id, tool, record.name)
    window = dialog.read_link("gate://late")
    with qtbot.waitSignal(window.destroyed, timeout=WAIT):
        dialog.close()  # Try deletes itself on close, and the link window with it
    with qtbot.waitSignal(router.signals.finished, timeout=WAIT, check_params_cb=read_finished()) as finished:
        (tmp_path / "late").touch()
    assert finished.args is not None and finished.args[2]["contents"][0]["text"] == "gate late opened"
    assert shown == [], "finished is emitted right before the callbacks would run: none did"
