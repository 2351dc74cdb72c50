"""The Try dialog's App tab: a tool's ``ui://`` view rendered and wired to the dialect, or what is missing.

The resource is read through the pool (``mcp:read-resource``) when the tab is first shown. With
QtWebEngine installed the view runs in :class:`~elftia_desktop.ui.apps.web.AppFrame` under the policy
built from its ``_meta.ui.csp``; without it the tab says what to install and shows what the resource
declares.
"""

from __future__ import annotations

import html
import json
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QLabel, QMessageBox, QPlainTextEdit, QScrollArea, QVBoxLayout, QWidget

from elftia_desktop.ui.apps import APPS_EXTRA_HINT, webengine_available
from elftia_desktop.ui.apps.dialect import AppDialect
from elftia_desktop.ui.apps.meta import ViewPolicy, resource_uri_of, ui_meta, view_content, view_html, with_policy

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.bridge.results_explore import ResourceContent, ResourceRead
    from elftia_desktop.bridge.router import McpRouter
    from elftia_desktop.core.models import MCPCallToolResponse
    from elftia_desktop.ui.apps.web import AppFrame

log = logging.getLogger(__name__)

MIN_HEIGHT, MAX_HEIGHT = 120, 2000
"""Bounds of the frame's height, whatever the view reports."""


class AppPane(QWidget):
    """The view of one tool's ``ui://`` resource, with the host side of the dialect behind it."""

    def __init__(self, router: McpRouter, server_id: str, tool: Mapping[str, Any], parent: QWidget | None = None):
        super().__init__(parent)
        self._router = router
        self._server_id = server_id
        self._tool = dict(tool)
        self.uri = resource_uri_of(tool) or ""
        self.frame: AppFrame | None = None
        self.dialect: AppDialect | None = None
        self.link_question: QMessageBox | None = None
        """The latest "open this link?" question."""
        self.declared: QPlainTextEdit | None = None
        """Without QtWebEngine: what the resource declares."""
        self.status = QLabel(f"Reading {self.uri}…", self)
        self.status.setObjectName("Muted")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.area = QScrollArea(self)
        self.area.setWidgetResizable(True)
        self.area.setFrameShape(QScrollArea.Shape.NoFrame)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.status)
        layout.addWidget(self.area, 1)
        self._started = False
        self._last_call: tuple[dict[str, Any], MCPCallToolResponse] | None = None

    def showEvent(self, event: QShowEvent) -> None:
        """The first time the tab shows, the resource is read and the view starts (not before: it costs a
        browser process)."""
        super().showEvent(event)
        if not self._started:
            self._started = True
            self._router.explore.read_resource(self._server_id, self.uri).then(self, self._read, self._unread)

    # -- the resource -------------------------------------------------------------------------

    def _read(self, result: ResourceRead) -> None:
        try:
            content = view_content(result, self.uri)
            document = view_html(content)
        except ValueError as exc:
            self.status.setText(f"The view cannot be shown: {exc}")
            return
        if webengine_available():
            self._show_view(document, ViewPolicy.of(ui_meta(content.meta).get("csp")))
        else:
            self._show_missing(content, len(document))

    def _unread(self, error: BridgeError) -> None:
        self.status.setText(f"{self.uri} could not be read: {error.kind}: {error.message}")

    def _show_view(self, document: str, policy: ViewPolicy) -> None:
        from elftia_desktop.ui.apps.web import AppFrame

        dropped = list(policy.dropped)
        log.info("MCP App view %s of %s runs under: %s", self.uri, self._server_id, policy.header)
        if dropped:
            log.warning("MCP App view %s: ignored CSP entries that are not origins: %s", self.uri, dropped)
        self.frame = AppFrame(with_policy(document, policy.header), list(policy.frames), self)
        self.frame.setMinimumHeight(MIN_HEIGHT)
        self.dialect = AppDialect(self._router, self._server_id, self._tool, policy, self.ask_link, self)
        self.dialect.container = (max(self.area.viewport().width(), 320), MAX_HEIGHT)
        self.dialect.post.connect(self.frame.send)
        self.frame.received.connect(self.dialect.receive)
        self.dialect.heightChanged.connect(self._fit)
        if self._last_call is not None:  # a Try call ended before the tab was first shown
            self.dialect.show_call(*self._last_call)
        self.area.setWidget(self.frame)
        network = ", ".join(policy.connect) if policy.connect else "none"
        ignored = f" · ignored: {', '.join(dropped)}" if dropped else ""
        self.status.setText(f"{self.uri} · network: {network}{ignored}")

    def _show_missing(self, content: ResourceContent, size: int) -> None:
        self.status.setText(
            "This tool has an MCP App view, which needs QtWebEngine: install it with "
            f"{APPS_EXTRA_HINT} (the Elftia Desktop app bundle includes it). What the view declares:"
        )
        shown = {"uri": content.uri, "mimeType": content.mime_type, "_meta": content.meta}
        self.declared = QPlainTextEdit(json.dumps(shown, indent=2) + f"\n\n({size} characters of HTML)", self)
        self.declared.setReadOnly(True)
        self.area.setWidget(self.declared)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """The frame's width is the view's container width (``containerDimensions`` at its next initialize)."""
        super().resizeEvent(event)
        if self.dialect is not None:
            self.dialect.container = (self.area.viewport().width(), MAX_HEIGHT)

    def _fit(self, height: int) -> None:
        if self.frame is not None:
            self.frame.setMinimumHeight(min(max(height, MIN_HEIGHT), MAX_HEIGHT))

    # -- the Try dialog's call ----------------------------------------------------------------

    def tool_finished(self, args: Mapping[str, Any], response: MCPCallToolResponse) -> None:
        """The Try dialog's call ended: the view gets its input and result."""
        self._last_call = (dict(args), response)
        if self.dialect is not None:
            self.dialect.show_call(args, response)

    def tool_cancelled(self, reason: str) -> None:
        """The Try dialog's call was cancelled or failed."""
        if self.dialect is not None:
            self.dialect.show_cancelled(reason)

    def close_view(self) -> None:
        """The dialog closes: the view is told (``ui/resource-teardown``)."""
        if self.dialect is not None:
            self.dialect.teardown("The Try dialog was closed")

    # -- consent ------------------------------------------------------------------------------

    def ask_link(self, url: QUrl, answer: Callable[[bool], None]) -> None:
        """Ask (without blocking) whether to open ``url``, naming its domain; ``answer(True)`` opens it."""
        box = QMessageBox(QMessageBox.Icon.Question, "Open a link from the app?", "", parent=self)
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(
            f"The view of <b>{html.escape(str(self._tool.get('name')))}</b> wants to open a page on"
            f"<p style='font-size:large'><b>{html.escape(url.host())}</b></p>"
            f"<p>{html.escape(url.toString())}</p>"
        )
        opening = box.addButton("Open in browser", QMessageBox.ButtonRole.AcceptRole)
        keep = box.addButton("Don't open", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep)
        box.finished.connect(lambda _result: answer(box.clickedButton() is opening))
        self.link_question = box
        box.open()


def app_pane_for(
    router: McpRouter, server_id: str, tool: Mapping[str, Any], parent: QWidget | None = None
) -> AppPane | None:
    """The App tab for a tool whose ``_meta.ui.resourceUri`` names a ``ui://`` view; None for other tools."""
    return AppPane(router, server_id, tool, parent) if resource_uri_of(tool) else None
