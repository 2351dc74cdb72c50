"""``TryToolDialog``: call one tool of a server from the window, like the MCP Inspector.

The arguments come from a form generated from the tool's input schema (with a JSON tab);
they are checked with ``jsonschema`` first and nothing is sent while a field is wrong. A
running call shows a progress bar driven by the server's progress notifications and can be
cancelled (the server is sent ``notifications/cancelled``). The result is rendered block by
block with its duration; every call goes into the session's history, where it can be re-run.

Open it from anywhere with :func:`open_try_tool` (router, server id, tool).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.ui.apps.pane import app_pane_for
from elftia_desktop.ui.dialogs.try_history import SESSION_HISTORY, HistoryList, TriedCall, TryHistory
from elftia_desktop.ui.dialogs.try_task import TaskWatch
from elftia_desktop.ui.widgets.fixed_space import keep_place, reserve_lines
from elftia_desktop.ui.widgets.inline_code import set_description
from elftia_desktop.ui.widgets.result_view import ResultView
from elftia_desktop.ui.widgets.schema_form import SchemaForm

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.bridge.pending import Pending, Progress
    from elftia_desktop.bridge.results import TimedCall
    from elftia_desktop.bridge.results_explore import ResourceRead
    from elftia_desktop.bridge.router import McpRouter
    from elftia_desktop.core.models import MCPCallToolResponse, MCPTool

PROGRESS_STEPS = 1000


def tool_as_dict(tool: dict[str, Any] | MCPTool) -> dict[str, Any]:
    """A tool as ``{name, description, inputSchema}`` (a discover dict or an ``MCPTool``)."""
    if isinstance(tool, dict):
        return tool
    return {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}


class TryToolDialog(QDialog):
    """Arguments form, Call / Cancel, progress, result and history of one tool."""

    def __init__(
        self,
        router: McpRouter,
        server_id: str,
        tool: dict[str, Any] | MCPTool,
        server_name: str = "",
        parent: QWidget | None = None,
        history: TryHistory | None = None,
    ) -> None:
        super().__init__(parent)
        self._router = router
        self.server_id = server_id
        self.tool = tool_as_dict(tool)
        self.tool_name = str(self.tool.get("name", ""))
        self.history = history if history is not None else SESSION_HISTORY
        self.pending: Pending[TimedCall] | None = None
        """The running call (None while none runs)."""
        self.link_window: QDialog | None = None
        """The latest window of a read resource link."""
        self.last_response: MCPCallToolResponse | None = None
        """The latest result (None before the first or after a failed call)."""
        self._sent_args: dict[str, Any] = {}
        self.setWindowTitle(f"Try {self.tool_name}" + (f" — {server_name}" if server_name else ""))
        self._build(server_name)
        self.task_watch = TaskWatch(self, router)  # a call that became a task (try_task.py)
        self.resize(1000, 660)
        self._show_history()

    # -- layout ------------------------------------------------------------------------------

    def _build(self, server_name: str) -> None:
        title = QLabel(self.tool_name, self)
        title.setObjectName("PageTitle")
        where = QLabel(server_name, self)
        where.setObjectName("Muted")
        description = QLabel(self)
        set_description(description, str(self.tool.get("description") or "No description."))
        description.setObjectName("Muted")
        description.setWordWrap(True)
        head = QHBoxLayout()
        head.addWidget(title)
        head.addWidget(where, 1, Qt.AlignmentFlag.AlignBottom)
        self.form = SchemaForm(self.tool.get("inputSchema") or {}, self)
        self.form.changed.connect(lambda: self.status.setText(""))
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self._left())
        splitter.addWidget(self._right())
        splitter.setStretchFactor(0, 5)
        splitter.setStretchFactor(1, 6)
        close = QPushButton("Close", self)
        close.setAutoDefault(False)
        close.setToolTip("Close; a running call is cancelled (a running task goes on)")
        close.clicked.connect(self.accept)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.addLayout(head)
        layout.addWidget(description)
        layout.addWidget(splitter, 1)
        layout.addLayout(bottom)

    def _left(self) -> QWidget:
        page = QWidget(self)
        self.call_button = QPushButton("&Call", page)
        self.call_button.setObjectName("Primary")
        self.call_button.setDefault(True)
        self.call_button.setToolTip("Check the arguments against the schema, then call the tool (Ctrl+Enter)")
        self.call_button.setShortcut("Ctrl+Return")
        self.call_button.clicked.connect(self.call)
        self.cancel_button = QPushButton("Ca&ncel call", page)
        self.cancel_button.setAutoDefault(False)
        self.cancel_button.setToolTip("Stop the running call; the server is told to cancel it")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar(page)
        self.progress.setTextVisible(True)
        self.progress.setFixedHeight(18)
        keep_place(self.progress)  # the buttons keep their places while a call runs
        self.progress.hide()
        self.status = QLabel("", page)
        self.status.setObjectName("Muted")
        self.status.setWordWrap(True)
        reserve_lines(self.status, 2)
        buttons = QHBoxLayout()
        buttons.addWidget(self.call_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.progress, 1)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 6, 6, 0)
        layout.addWidget(self.form, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        return page

    def _right(self) -> QWidget:
        self.side = QTabWidget(self)
        self.result_view = ResultView(self.side)
        self.result_view.readRequested.connect(self.read_link)
        self.history_list = HistoryList(self.side)
        self.history_list.itemDoubleClicked.connect(lambda item: self.rerun(self.history_list.row(item)))
        history_page = QWidget(self.side)
        rerun = QPushButton("Run again", history_page)
        rerun.setAutoDefault(False)
        rerun.setToolTip("Put the selected call's arguments into the form and call again")
        rerun.clicked.connect(lambda: self.rerun(self.history_list.currentRow()))
        column = QVBoxLayout(history_page)
        column.setContentsMargins(6, 6, 6, 6)
        column.addWidget(self.history_list, 1)
        column.addWidget(rerun, 0, Qt.AlignmentFlag.AlignRight)
        self.side.addTab(self.result_view, "&Result")
        self.side.addTab(history_page, "&History")
        self.app_pane = app_pane_for(self._router, self.server_id, self.tool, self.side)
        if self.app_pane is not None:  # the tool has an MCP App view (_meta.ui.resourceUri)
            self.side.addTab(self.app_pane, "&App")
        return self.side

    # -- calling -----------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True while a call is in flight."""
        return self.pending is not None

    def call(self) -> None:
        """Validate the arguments and, when they are good, send the call."""
        if self.running:
            return
        issues = self.form.validate()
        if issues:
            self.status.setText(f"Not sent: {len(issues)} argument problem{'s' if len(issues) != 1 else ''}.")
            return
        self._sent_args = self.form.value()
        self._set_running(True)
        self.status.setText("Calling…")
        self.result_view.clear(f"Calling {self.tool_name}… the result appears here.")
        call_id = self.task_watch.new_call()
        pending = self._router.explore.try_tool(self.server_id, self.tool_name, self._sent_args, call_id)
        self.pending = pending.progress(self, self._on_progress)
        pending.then(self, lambda timed: self._done(pending, timed), lambda error: self._failed(pending, error))

    def cancel(self) -> None:
        """Cancel the running call (on the service loop; the server is sent ``notifications/cancelled``)."""
        if self.pending is None:
            return
        self.cancel_button.setEnabled(False)
        self.status.setText("Cancelling…")
        if not self.task_watch.cancel_task():
            self.pending.cancel()

    def rerun(self, row: int) -> None:
        """Load the arguments of history row ``row`` into the form and call again."""
        tried = self.history_list.call_at(row)
        if tried is None or self.running:
            return
        self.form.set_value(tried.args)
        self.call()

    def read_link(self, uri: str) -> QDialog:
        """Read a resource link of the result and show its contents in a small window."""
        window = QDialog(self)
        window.setWindowTitle(uri)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        view = ResultView(window)
        view.clear(f"Reading {uri}…")
        QVBoxLayout(window).addWidget(view)
        window.resize(560, 420)
        started = time.perf_counter()

        def shown(result: ResourceRead) -> None:
            """Show the resource's contents and the time it took."""
            view.show_contents(result, (time.perf_counter() - started) * 1000)

        def failed(error: BridgeError) -> None:
            """Show why the read failed and the time it took."""
            view.show_failure(f"{error.kind}: {error.message}", (time.perf_counter() - started) * 1000)

        # the link window owns the callbacks: closed (or the dialog closed) before the answer, they are dropped
        self._router.explore.read_resource(self.server_id, uri).then(window, shown, failed)
        window.open()
        self.link_window = window
        return window

    def _set_running(self, running: bool) -> None:
        self.call_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.progress.setVisible(running)
        self.progress.setRange(0, 0)
        self.progress.setFormat("working…")

    def _on_progress(self, event: Progress) -> None:
        progress, total = event.progress or 0.0, event.total
        if total:
            self.progress.setFormat(f"{progress:g} / {total:g}")
            self.progress.setRange(0, PROGRESS_STEPS)
            self.progress.setValue(round(min(progress / total, 1.0) * PROGRESS_STEPS))
        else:
            self.progress.setRange(0, 0)
        self.status.setText(event.message or f"Progress: {progress:g}")

    def _done(self, pending: Pending[TimedCall], timed: TimedCall) -> None:
        if pending is not self.pending:
            return
        self.pending = None
        self._set_running(False)
        response = self.last_response = timed.response
        self.result_view.show_response(response, timed.duration_ms)
        self.side.setCurrentIndex(0)
        self.status.setText("The tool reported an error." if response.is_error else "Done.")
        if self.app_pane is not None:
            self.app_pane.tool_finished(self._sent_args, response)
        self._remember("error" if response.is_error else "ok", timed.duration_ms)

    def _failed(self, pending: Pending[TimedCall], error: BridgeError) -> None:
        if pending is not self.pending:
            return
        self.pending = None
        self._set_running(False)
        self.last_response = None
        cancelled = error.cancelled
        self.result_view.show_failure(error.message, cancelled=cancelled)
        self.side.setCurrentIndex(0)
        self.status.setText("Cancelled." if cancelled else f"{error.kind}: {error.message}")
        if self.app_pane is not None:
            self.app_pane.tool_cancelled("Cancelled by the user" if cancelled else error.message)
        self._remember("cancelled" if cancelled else "failed", None)

    def _remember(self, outcome: str, duration_ms: float | None) -> None:
        self.history.add(TriedCall(self.server_id, self.tool_name, self._sent_args, outcome, duration_ms))
        self._show_history()

    def _show_history(self) -> None:
        calls = self.history.calls(self.server_id, self.tool_name)
        self.history_list.show_calls(calls)
        self.side.setTabText(1, f"&History ({len(calls)})")

    # -- closing -----------------------------------------------------------------------------

    def done(self, result: int) -> None:
        """Close; a running call is cancelled first (a running task goes on) and its late answer ignored."""
        if self.pending is not None:
            if not self.task_watch.running:
                self.cancel()
            self.pending = None
        self.task_watch.stop()
        if self.app_pane is not None:
            self.app_pane.close_view()
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:
        """The window's close button: like Close."""
        if self.running and not self.task_watch.running:
            self.cancel()
        super().closeEvent(event)


def open_try_tool(
    router: McpRouter,
    server_id: str,
    tool: dict[str, Any] | MCPTool,
    server_name: str = "",
    parent: QWidget | None = None,
) -> TryToolDialog:
    """Open (non-modal) the try-a-tool dialog for ``tool`` of ``server_id``; for the tool picker and Discover."""
    dialog = TryToolDialog(router, server_id, tool, server_name, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog
