"""Issue 34 (Apps): the host side of the ``ui/*`` dialect checks every request of the view.

Against the real ``app_view`` server (in memory), without a web engine: the dialect is fed JSON-RPC text as the
view would send it, and what it posts back is read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import MCPCallToolResponse
from elftia_desktop.ui.apps.dialect import DENIED, INVALID_PARAMS, METHOD_NOT_FOUND, AppDialect
from elftia_desktop.ui.apps.meta import ViewPolicy
from tests.servers import app_view
from tests.ui.apps_helpers import FORECAST, forecast_server

pytestmark = pytest.mark.timeout(120)
WAIT = 30_000


class Talk:
    """A dialect and what it posted, with the links it asked about."""

    def __init__(self, qtbot: QtBot, router: McpRouter) -> None:
        record = forecast_server(None)
        self.asked: list[QUrl] = []
        self.posted: list[dict[str, Any]] = []
        self.heights: list[int] = []
        self.dialect = AppDialect(
            router, record.id, FORECAST, ViewPolicy.of(app_view.CSP), lambda url, _answer: self.asked.append(url)
        )
        self.dialect.post.connect(lambda text: self.posted.append(json.loads(text)))
        self.dialect.heightChanged.connect(self.heights.append)
        self._qtbot = qtbot

    def request(self, rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request as the view; the answer with that id."""
        self.dialect.receive(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}))
        self._qtbot.waitUntil(lambda: any(m.get("id") == rid for m in self.posted), timeout=WAIT)
        return next(m for m in self.posted if m.get("id") == rid)

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.dialect.receive(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}))


@pytest.fixture
def talk(
    qtbot: QtBot, router: McpRouter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_servers: list[str]
) -> Talk:
    """The dialect of ``forecast`` (the app_view server in memory, its marker file in ``tmp_path``)."""
    monkeypatch.setenv("ELFTIA_APP_MARKER", str(tmp_path / "marker.txt"))
    return Talk(qtbot, router)


def test_initialize_gives_our_theme_and_the_approved_domains(talk: Talk) -> None:
    result = talk.request(1, "ui/initialize", {"protocolVersion": "2026-01-26", "appCapabilities": {}})["result"]
    assert result["protocolVersion"] == "2026-01-26" and result["hostInfo"]["name"] == "elftia-desktop"
    context = result["hostContext"]
    text = QApplication.palette().color(QPalette.ColorRole.Text).name()
    assert context["styles"]["variables"]["--color-text-primary"] == text
    assert context["displayMode"] == "inline" and context["toolInfo"]["tool"]["name"] == "forecast"
    assert result["hostCapabilities"]["sandbox"]["csp"]["connectDomains"] == [app_view.ALLOWED]


def test_the_view_calls_only_tools_visible_to_apps(talk: Talk, tmp_path: Path) -> None:
    refused = talk.request(1, "tools/call", {"name": "forecast", "arguments": {"city": "Oslo"}})
    assert refused["error"]["code"] == DENIED and "visibility" in refused["error"]["message"]
    unknown = talk.request(2, "tools/call", {"name": "nope", "arguments": {}})
    assert unknown["error"]["code"] == INVALID_PARAMS and "no such tool" in unknown["error"]["message"]
    bad = talk.request(3, "tools/call", {"name": "refresh_view", "arguments": ["Oslo"]})
    assert bad["error"]["code"] == INVALID_PARAMS
    called = talk.request(4, "tools/call", {"name": "refresh_view", "arguments": {"city": "Oslo"}})
    assert called["result"]["content"][0]["text"] == "refreshed Oslo" and called["result"]["isError"] is False
    assert (tmp_path / "marker.txt").read_text().splitlines() == ["refresh_view Oslo"]


def test_what_the_host_does_not_do_is_refused_by_name(talk: Talk) -> None:
    link = talk.request(1, "ui/open-link", {"url": "file:///etc/passwd"})
    assert link["error"]["code"] == INVALID_PARAMS and "http or https" in link["error"]["message"]
    assert talk.asked == [], "an invalid link is not even asked about"
    message = talk.request(2, "ui/message", {"role": "user", "content": {"type": "text", "text": "hi"}})
    assert message["error"]["code"] == DENIED and "no conversation" in message["error"]["message"]
    assert talk.request(3, "sampling/createMessage", {})["error"]["code"] == METHOD_NOT_FOUND
    assert talk.request(4, "ui/request-display-mode", {"mode": "fullscreen"})["result"] == {"mode": "inline"}
    assert talk.request(5, "ping", {})["result"] == {}


def test_notifications_wait_for_initialized_and_sizes_are_passed_on(talk: Talk) -> None:
    talk.dialect.show_call(
        {"city": "Rome"}, MCPCallToolResponse(is_error=False, content=[], structured_content={"a": 1})
    )
    assert talk.posted == [], "nothing goes to the view before it is initialized"
    talk.notify("ui/notifications/initialized", {})
    assert [m["method"] for m in talk.posted] == ["ui/notifications/tool-input", "ui/notifications/tool-result"]
    assert talk.posted[0]["params"] == {"arguments": {"city": "Rome"}}
    assert talk.posted[1]["params"]["structuredContent"] == {"a": 1}
    talk.notify("ui/notifications/size-changed", {"width": 300, "height": 412.5})
    talk.notify("ui/notifications/size-changed", {"width": 300, "height": "tall"})
    assert talk.heights == [412]
