"""The paste-JSON dialog (``mcp:addJson``): live preview, conflicts resolved per server, results.

The text is parsed as it is typed with ``core.server_json`` (pure functions, no I/O). A syntax
error names its line and column, highlights the line and the spot, and puts the cursor there
after a paste (or when the user follows the "Go to" link). The preview lists every server with
what it runs and whether its name is taken; each taken name gets its own choice (rename, skip,
replace). ``router.add_json`` takes one ``onConflict`` for all, so the servers are submitted in
groups, one ``add_json`` call per chosen policy, each group as a JSON list of named entries.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QColor, QFontDatabase, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QTableWidgetItem,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.errors import JsonInputError
from elftia_desktop.core.models import DependencyCheckResult, McpActionResult
from elftia_desktop.core.text_rules import display_name
from elftia_desktop.ui.dialogs.json_error_marks import error_marks, error_position
from elftia_desktop.ui.dialogs.json_import_results import ImportResultsPage
from elftia_desktop.ui.dialogs.json_preview import (
    ACTIONS_NEW,
    ACTIONS_TAKEN,
    POLICY_OF_ACTION,
    PreviewRow,
    group_json,
    preview_rows,
    status_text,
    submission_groups,
)
from elftia_desktop.ui.dialogs.json_preview_table import preview_table
from elftia_desktop.ui.theme import STATE_COLORS, is_dark

PARSE_DELAY_MS = 250
EXAMPLE = '{\n  "mcpServers": {\n    "time": { "command": "uvx", "args": ["mcp-server-time"] }\n  }\n}'


class JsonImportDialog(QDialog):
    """Paste server JSON, check the preview, resolve name conflicts, add, see what happened.

    Signals:
        imported(object): the list of ``McpActionResult``, one per submitted server.
    """

    imported = Signal(object)

    def __init__(
        self, router: McpRouter | None, existing_names: list[str] | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._router = router
        self._existing = set(existing_names or [])
        self.rows: list[PreviewRow] = []
        self.error: JsonInputError | None = None
        self.results: list[tuple[str, str, str]] = []
        self._found: dict[str, bool] = {}
        """Command -> whether it is on this machine (asked once per command)."""
        self._checking: set[str] = set()
        self._pending: list[tuple[str, list[PreviewRow]]] = []
        self._move_cursor = False
        self.setWindowTitle("Add servers from JSON")
        self._build()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(PARSE_DELAY_MS)
        self._timer.timeout.connect(self.parse_now)
        self.editor.document().contentsChange.connect(self._edited)
        self.resize(860, 640)
        self.parse_now()

    # -- layout ----------------------------------------------------------------------------

    def _build(self) -> None:
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self._edit_page())
        self.result_page = ImportResultsPage(self)
        self.result_page.done.connect(self.accept)
        self.stack.addWidget(self.result_page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.addWidget(self.stack)

    def _edit_page(self) -> QWidget:
        page = QWidget(self)
        title = QLabel("&Paste the server JSON", page)
        title.setObjectName("CardTitle")
        hint = QLabel(
            'Any shape works: <code>{"mcpServers": {…}}</code> (Claude Desktop, Cursor, Cline), '
            '<code>{"servers": {…}}</code> (VS Code), a <code>{name: server}</code> map, '
            "one server with a name, or a list of named servers.",
            page,
        )
        hint.setObjectName("Muted")
        hint.setWordWrap(True)
        self.editor = QPlainTextEdit(page)
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.setPlaceholderText(EXAMPLE)
        self.editor.setTabChangesFocus(True)
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.editor.setToolTip("Paste or type JSON; the preview below updates as you type")
        title.setBuddy(self.editor)
        self.error_label = QLabel(page)
        self.error_label.setObjectName("FieldError")
        self.error_label.setWordWrap(True)
        self.error_label.setToolTip("Follow the link to put the cursor on the error")
        self.error_label.linkActivated.connect(lambda _link: self.go_to_error())
        self.error_label.hide()
        self.table = preview_table(page)
        self.summary = QLabel(page)
        self.summary.setObjectName("Muted")
        buttons = self._button_row(page)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget, stretch in ((title, 0), (hint, 0), (self.editor, 3), (self.error_label, 0)):
            layout.addWidget(widget, stretch)
        preview_title = QLabel("Preview", page)
        preview_title.setObjectName("CardTitle")
        layout.addWidget(preview_title)
        layout.addWidget(self.table, 2)
        layout.addWidget(self.summary)
        layout.addLayout(buttons)
        return page

    def _button_row(self, page: QWidget) -> QHBoxLayout:
        """Open file, the trust box, Cancel and Add servers."""
        self.trust = QCheckBox("&Trust these servers (start them without asking first)", page)
        self.trust.setToolTip(
            "Unchecked: before a server's first start, Elftia shows exactly what it runs and asks you"
        )
        self.open_button = QPushButton("&Open file…", page)
        self.open_button.setToolTip("Load the JSON from a file (an app's config, a README snippet saved as .json)")
        self.open_button.setAutoDefault(False)
        self.open_button.setEnabled(self._router is not None)
        self.open_button.clicked.connect(self._choose_file)
        self.cancel = QPushButton("Cancel", page)
        self.cancel.setToolTip("Close without adding anything (Escape)")
        self.cancel.setAutoDefault(False)
        self.cancel.clicked.connect(self.reject)
        self.submit = QPushButton("&Add servers", page)
        self.submit.setObjectName("Primary")
        self.submit.setToolTip("Add the servers marked Add, Rename or Replace (Ctrl+Enter)")
        self.submit.clicked.connect(self.start_import)
        QShortcut(QKeySequence("Ctrl+Return"), self, self.start_import)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.trust, 1)
        buttons.addWidget(self.cancel)
        buttons.addWidget(self.submit)
        return buttons

    # -- parsing and preview ---------------------------------------------------------------

    def set_text(self, text: str) -> None:
        """Replace the text as a paste would (the cursor jumps to a syntax error)."""
        self.editor.setPlainText(text)
        self.parse_now()

    def _choose_file(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(
            self, "Open server JSON", "", "JSON files (*.json *.jsonc);;All files (*)"
        )
        if path:
            self.open_file(path)

    def open_file(self, path: str) -> None:
        """Load ``path`` through the service loop (decoded as UTF-8, bounded); errors show above the preview."""
        if self._router is None:
            return
        self.open_button.setEnabled(False)
        self._router.servers.read_json_file(path).then(self, self._file_loaded, self._file_failed)

    def _file_loaded(self, text: str) -> None:
        self.open_button.setEnabled(True)
        self._move_cursor = True
        self.set_text(text)

    def _file_failed(self, error: BridgeError) -> None:
        self.open_button.setEnabled(True)
        self.error = JsonInputError(error.message)
        self.rows = []
        self._show_error()
        self._fill_preview()

    def _edited(self, _position: int, _removed: int, added: int) -> None:
        self._move_cursor = self._move_cursor or added > 1
        self._timer.start()

    def parse_now(self) -> None:
        """Parse the text and refresh the error, the highlight and the preview."""
        self._timer.stop()
        text = self.editor.toPlainText()
        chosen = {(r.name, r.taken): r.action for r in self.rows}
        self.error = None
        self.rows = []
        if text.strip():
            try:
                self.rows = preview_rows(text, self._existing)
            except JsonInputError as exc:
                self.error = exc
        for row in self.rows:
            if not row.error:
                row.action = chosen.get((row.name, row.taken), row.action)
        self._show_error()
        self._fill_preview()
        if self.error is not None and self.error.line is not None and self._move_cursor:
            self.go_to_error()
        self._move_cursor = False

    def _show_error(self) -> None:
        error = self.error
        selections: list[QTextEdit.ExtraSelection] = []
        if error is None:
            self.error_label.hide()
        elif error.line is None:
            self.error_label.setText(str(error))
            self.error_label.show()
        else:
            link = f'<a href="goto">Go to line {error.line}, column {error.column}</a>'
            self.error_label.setText(f"{html.escape(str(error))} — {link}")
            self.error_label.show()
            selections = error_marks(self.editor, error.line, error.column or 1, is_dark(self.palette()))
        self.editor.setExtraSelections(selections)

    def error_position(self, line: int, column: int) -> int:
        """The document position of a 1-based JSON line/column, clamped to the text."""
        return error_position(self.editor, line, column)

    def go_to_error(self) -> None:
        """Put the cursor on the syntax error and focus the editor."""
        if self.error is None or self.error.line is None:
            return
        cursor = self.editor.textCursor()
        cursor.setPosition(self.error_position(self.error.line, self.error.column or 1))
        self.editor.setTextCursor(cursor)
        self.editor.centerCursor()
        self.editor.setFocus()

    def _fill_preview(self) -> None:
        self.table.clearSpans()
        self.table.setRowCount(len(self.rows))
        for index, row in enumerate(self.rows):
            cells = [row.name, row.transport, row.runs, status_text(row, self._found)]
            if row.error:  # the reason takes the Transport, Runs and Status cells: it reads whole
                cells = [row.name, cells[3], "", ""]
                self.table.setSpan(index, 1, 1, 3)
            missing = self._found.get(row.command) is False
            for column, text in enumerate(cells):
                item = QTableWidgetItem(display_name(text, 60) if column == 0 else text)
                item.setToolTip(text)
                if (column == 3 and (row.taken or missing)) or (column == 1 and row.error):
                    item.setForeground(QColor(STATE_COLORS["error" if row.error or missing else "connecting"]))
                self.table.setItem(index, column, item)
            self.table.setCellWidget(index, 4, self._action_box(index, row))
            self._check_command(row.command)
        self._update_summary()

    def _check_command(self, command: str) -> None:
        """Ask once whether ``command`` is on this machine, as the Add form does; the answer refills the preview."""
        if not command or command in self._found or command in self._checking or self._router is None:
            return
        self._checking.add(command)

        def checked(result: DependencyCheckResult) -> None:
            """Keep the answer and show it on every row that runs the command."""
            self._checking.discard(command)
            self._found[command] = result.installed
            self._fill_preview()

        self._router.deps.check(command).then(self, checked, lambda _e: None)

    def _action_box(self, index: int, row: PreviewRow) -> QWidget:
        if row.error:
            label = QLabel("Can't add", self.table)
            label.setObjectName("Muted")
            label.setContentsMargins(6, 0, 6, 0)
            return label
        box = QComboBox(self.table)
        for value, text in ACTIONS_TAKEN if row.taken else ACTIONS_NEW:
            box.addItem(text, value)
        box.setCurrentIndex(max(0, box.findData(row.action)))
        box.setToolTip(f"What to do with {row.name}" + (": a server with this name exists" if row.taken else ""))
        box.setAccessibleName(f"Action for {row.name}")
        box.currentIndexChanged.connect(lambda _i, r=row, b=box: self.set_action(self.rows.index(r), b.currentData()))
        return box

    def set_action(self, index: int, action: str) -> None:
        """Choose what happens to the server in preview row ``index``."""
        row = self.rows[index]
        if row.error:
            return
        row.action = action
        box = self.table.cellWidget(index, 4)
        if isinstance(box, QComboBox) and box.currentData() != action:
            box.setCurrentIndex(box.findData(action))
        self._update_summary()

    def _update_summary(self) -> None:
        chosen = sum(r.action in POLICY_OF_ACTION for r in self.rows)
        taken = sum(r.taken for r in self.rows)
        invalid = sum(bool(r.error) for r in self.rows)
        parts = [f"{len(self.rows)} server{'s' * (len(self.rows) != 1)}"]
        parts += [f"{taken} name{'s' * (taken != 1)} taken"] if taken else []
        parts += [f"{invalid} cannot be added"] if invalid else []
        empty = "Fix the JSON error above to see the servers." if self.error else "Nothing to add yet."
        self.summary.setText(" · ".join(parts) if self.rows else empty)
        self.submit.setText(f"&Add {chosen} server{'s' * (chosen != 1)}" if chosen else "&Add servers")
        can = chosen > 0 and self.error is None and self._router is not None and not self._pending
        self.submit.setEnabled(can)
        self.submit.setDefault(can)

    # -- submit and results ----------------------------------------------------------------

    def start_import(self) -> None:
        """Submit the chosen servers, one ``add_json`` call per conflict policy."""
        if self._timer.isActive():
            self.parse_now()
        if self.error is not None or self._router is None or self._pending or not self.submit.isEnabled():
            return
        self.results = [(r.name, "skipped", "Skipped, as chosen") for r in self.rows if r.action == "skip"]
        self.results += [(r.name, "failed", r.error) for r in self.rows if r.error]
        self._pending = submission_groups(self.rows)
        self.submit.setEnabled(False)
        self.summary.setText("Adding…")
        self._next_group()

    def _next_group(self) -> None:
        if not self._pending:
            self._show_results()
            return
        assert self._router is not None
        policy, rows = self._pending[0]
        self._router.servers.add_json(group_json(rows), self.trust.isChecked(), policy).then(
            self, lambda result: self._group_done(rows, result), lambda error: self._group_failed(rows, error)
        )

    def _group_done(self, rows: list[PreviewRow], result: McpActionResult) -> None:
        outcomes = result.results or []
        for index, row in enumerate(rows):
            outcome = outcomes[index] if index < len(outcomes) else None
            if outcome is not None and outcome.success and outcome.server is not None:
                renamed = f" as {outcome.server.name}" if outcome.server.name != row.name else ""
                problem = f" It did not connect: {outcome.connect_problem}" if outcome.connect_problem else ""
                self.results.append((row.name, "added", f"Added{renamed}.{problem}"))
            else:
                why = (outcome.reason or outcome.error if outcome else result.reason or result.error) or "not added"
                self.results.append((row.name, "failed", why))
        self._pending.pop(0)
        self._next_group()

    def _group_failed(self, rows: list[PreviewRow], error: BridgeError) -> None:
        self.results += [(row.name, "failed", error.message) for row in rows]
        self._pending.pop(0)
        self._next_group()

    def _show_results(self) -> None:
        order = {r.name: i for i, r in enumerate(self.rows)}
        self.results.sort(key=lambda item: order.get(item[0], 0))
        self.result_page.show_results(self.results)
        self.stack.setCurrentIndex(1)
        self.imported.emit(list(self.results))
