"""Items of the security review in the window: the trust dialog flags risky variables and cannot be
forged, names are refused with the reason, and an install link with bad escapes is refused."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.dialogs.trust_dialog import TrustDialog
from tests.app.test_install_links import WAIT, link_form, open_window
from tests.helpers.live_router import add_servers, server_input

RECEIVER = QObject()
"""Owns the callbacks of these tests' router calls."""


def _result(qtbot: QtBot, call: Any) -> Any:
    got: list[Any] = []
    call(got.append)
    qtbot.waitUntil(lambda: bool(got), timeout=WAIT)
    return got[0]


def test_trust_dialog_flags_risky_keys_and_escapes_line_breaks(qtbot: QtBot, router: McpRouter) -> None:
    server = server_input("Sneaky", trusted=False)
    server.config.args = [*server.config.args, "x\r\nCommand: /bin/true"]
    server.config.env = {"LD_PRELOAD": "/tmp/evil.so", "MODE": "fast"}
    (record,) = add_servers(server)
    info = _result(qtbot, lambda done: router.servers.launch_info(record.id).then(RECEIVER, done))
    dialog = TrustDialog(info)
    qtbot.addWidget(dialog)
    texts = [label.text() for label in dialog.findChildren(QLabel)]
    assert texts.count("Command:") == 1 and "Risky variable:" in texts
    assert any(
        "LD_PRELOAD: loads these libraries into the server and every program it starts (Linux)" in t for t in texts
    )
    assert any("x\\r\\nCommand: /bin/true" in t for t in texts)
    assert not any("\n" in t or "\r" in t for t in texts if "Command" in t)
    assert any(f"<code>{sys.executable}</code>" == t for t in texts)


def test_look_alike_and_invisible_names_are_refused_with_the_reason(qtbot: QtBot, router: McpRouter) -> None:
    add_servers(server_input("Keep"))
    error = _result(
        qtbot,
        lambda failed: router.servers.add({"name": "K\u0435ep", "config": {"command": "npx"}}).then(RECEIVER, failed),
    )
    assert error.success is False
    assert error.error == (
        'K\u0435ep: name: "K\u0435ep" looks the same as the existing server "Keep"; choose another name'
    )
    refused = _result(
        qtbot,
        lambda failed: router.servers.add({"name": "Keep\u202e", "config": {"command": "npx"}}).then(
            RECEIVER, on_error=failed
        ),
    )
    assert "invisible character U+202E (RIGHT-TO-LEFT OVERRIDE)" in str(refused.message)


def test_install_link_with_bad_escapes_is_refused_on_the_page(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    window = open_window(qtbot, router, tmp_path)
    window.handle_arguments(["elftia://install-mcp?name=K%FFeep&config=%7B%22command%22%3A%22npx%22%7D"])
    notice = window.servers_page.notice
    qtbot.waitUntil(notice.isVisible, timeout=WAIT)
    assert "percent-escapes that are not UTF-8 text (%FF)" in notice.label.text()
    assert link_form() is None
