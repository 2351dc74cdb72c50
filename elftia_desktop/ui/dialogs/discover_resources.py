"""The Resources tab of the discover panel: read a resource or fill in a template and read it.

Resources are read as they are listed; a resource template gets a form with one field per
variable of its URI template (RFC 6570), the URI it expands to is shown as it is typed. The
contents appear with a text or image preview.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.ui.dialogs.uri_template import expand, template_variables
from elftia_desktop.ui.widgets.result_view import ResultView
from elftia_desktop.ui.widgets.schema_form import SchemaForm

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.bridge.router import McpRouter

ROLE = Qt.ItemDataRole.UserRole


class ResourcesPanel(QWidget):
    """Resources and resource templates in a tree; the chosen one can be read."""

    def __init__(self, router: McpRouter, server_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._router = router
        self.server_id = server_id
        self.form: SchemaForm | None = None
        self.template: dict[str, Any] | None = None
        self._started = 0.0
        self.error = QLabel(self)
        self.error.setObjectName("FieldError")
        self.error.setWordWrap(True)
        self.error.hide()
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["Name", "URI", "Type"])
        self.tree.setAlternatingRowColors(True)
        self.tree.currentItemChanged.connect(lambda item, _old: self._chosen(item))
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.tree)
        splitter.addWidget(self._detail())
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.error)
        layout.addWidget(splitter, 1)

    def _detail(self) -> QWidget:
        page = QWidget(self)
        self.description = QLabel("Choose a resource or a template.", page)
        self.description.setObjectName("Muted")
        self.description.setWordWrap(True)
        self.uri = QLabel("", page)
        self.uri.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.uri.setWordWrap(True)
        self.form_holder = QVBoxLayout()
        self.read_button = QPushButton("&Read", page)
        self.read_button.setObjectName("Primary")
        self.read_button.setAutoDefault(False)
        self.read_button.setToolTip("Read the resource at this URI")
        self.read_button.setEnabled(False)
        self.read_button.clicked.connect(self.read)
        self.status = QLabel("", page)
        self.status.setObjectName("Muted")
        row = QHBoxLayout()
        row.addWidget(self.read_button)
        row.addWidget(self.status, 1)
        self.result_view = ResultView(page)
        self.result_view.clear("The contents appear here.")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(8, 0, 0, 0)
        layout.addWidget(self.description)
        layout.addWidget(self.uri)
        layout.addLayout(self.form_holder, 1)
        layout.addLayout(row)
        layout.addWidget(self.result_view, 3)
        return page

    def set_resources(self, resources: list[dict[str, Any]], templates: list[dict[str, Any]], error: str = "") -> None:
        """Show the listed resources and templates (and why they could not be listed)."""
        self.error.setText(f"Could not be listed: {error}" if error else "")
        self.error.setVisible(bool(error))
        self.tree.clear()
        groups = (("Resources", resources, "uri"), ("Templates", templates, "uriTemplate"))
        for title, items, key in groups:
            group = QTreeWidgetItem(self.tree, [f"{title} ({len(items)})"])
            group.setFirstColumnSpanned(True)
            group.setFlags(group.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            for entry in items:
                cells = [str(entry.get(k) or "") for k in ("name", key, "mimeType")]
                child = QTreeWidgetItem(group, cells)
                child.setToolTip(1, cells[1])
                child.setData(0, ROLE, (key, entry))
        self.tree.expandAll()
        for column in range(2):
            self.tree.resizeColumnToContents(column)

    def select(self, uri_or_template: str) -> None:
        """Choose the entry with this URI or URI template."""
        for group in range(self.tree.topLevelItemCount()):
            parent = self.tree.topLevelItem(group)
            for index in range(parent.childCount() if parent else 0):
                child = parent.child(index) if parent else None
                if child is not None and child.text(1) == uri_or_template:
                    self.tree.setCurrentItem(child)
                    return

    def _chosen(self, item: QTreeWidgetItem | None) -> None:
        if self.form is not None:
            self.form_holder.removeWidget(self.form)
            self.form.hide()
            self.form.deleteLater()
            self.form = None
        data = item.data(0, ROLE) if item is not None else None
        self.read_button.setEnabled(data is not None)
        self.result_view.clear("The contents appear here.")
        self.status.setText("")
        if data is None:
            self.template = None
            return
        key, entry = data
        self.description.setText(str(entry.get("description") or "No description."))
        self.template = entry if key == "uriTemplate" else None
        if self.template is None:
            self.uri.setText(str(entry.get("uri", "")))
            return
        names = template_variables(str(entry.get("uriTemplate", "")))
        schema = {"type": "object", "properties": {n: {"type": "string"} for n in names}, "required": names}
        self.form = SchemaForm(schema, self)
        self.form.changed.connect(self._show_uri)
        self.form_holder.addWidget(self.form)
        self._show_uri()

    def current_uri(self) -> str:
        """The URI that Read would read (a template with the variables filled in)."""
        if self.template is None:
            return self.uri.text()
        values = {k: str(v) for k, v in (self.form.value() if self.form else {}).items()}
        return expand(str(self.template.get("uriTemplate", "")), values)

    def _show_uri(self) -> None:
        self.uri.setText(self.current_uri())

    def read(self) -> None:
        """Read the chosen resource (a template only once every variable is filled in)."""
        if self.form is not None and self.form.validate():
            self.status.setText("Fill in every variable of the template.")
            return
        uri = self.current_uri()
        if not uri:
            return
        self.read_button.setEnabled(False)
        self.status.setText("Reading…")
        self._started = time.perf_counter()
        self._router.explore.read_resource(
            self.server_id, uri, receiver=self, on_done=self._shown, on_error=self._failed
        )

    def _elapsed(self) -> float:
        return (time.perf_counter() - self._started) * 1000

    def _shown(self, result: dict[str, Any]) -> None:
        self.read_button.setEnabled(True)
        self.status.setText("")
        self.result_view.show_contents(result, self._elapsed())

    def _failed(self, error: BridgeError) -> None:
        self.read_button.setEnabled(True)
        self.status.setText("")
        self.result_view.show_failure(f"{error.kind}: {error.message}", self._elapsed())
