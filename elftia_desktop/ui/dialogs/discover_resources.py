"""The Resources tab of the discover panel: read a resource or fill in a template and read it.

Resources are read as they are listed; a resource template gets a form with one field per
variable of its URI template (RFC 6570), the URI it expands to is shown as it is typed. The
contents appear with a text or image preview.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from elftia_desktop.bridge.results_explore import ResourceInfo, ResourceRead, ResourceTemplateInfo
from elftia_desktop.ui.dialogs.explore_pane import DetailPane, explore_layout, show_list_error
from elftia_desktop.ui.dialogs.uri_template import expand, template_variables
from elftia_desktop.ui.widgets.inline_code import set_description
from elftia_desktop.ui.widgets.schema_form import SchemaForm

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.bridge.router import McpRouter

ROLE = Qt.ItemDataRole.UserRole


class ResourcesPanel(QWidget):
    """Resources and resource templates in a tree; the chosen one can be read."""

    def __init__(self, router: McpRouter, server_id: str, parent: QWidget | None = None) -> None:
        """An empty tab for ``server_id``'s resources (fill it with :meth:`set_resources`)."""
        super().__init__(parent)
        self._router = router
        self.server_id = server_id
        self.template: ResourceTemplateInfo | None = None
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["Name", "URI", "Type"])
        self.tree.setAlternatingRowColors(True)
        self.tree.currentItemChanged.connect(lambda item, _old: self._chosen(item))
        self.uri = QLabel("", self)
        self.uri.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.uri.setWordWrap(True)
        self.detail = DetailPane(
            self,
            choose="Choose a resource or a template.",
            action=("&Read", "Read the resource at this URI", self.read),
            empty_result="The contents appear here.",
            extra=self.uri,
            form_stretch=1,
        )
        self.description, self.read_button = self.detail.description, self.detail.button
        self.status, self.result_view = self.detail.status, self.detail.result_view
        self.error = explore_layout(self, self.tree, self.detail, (3, 4))

    @property
    def form(self) -> SchemaForm | None:
        """The variables form of the chosen template (None for a plain resource)."""
        return self.detail.form

    def set_resources(
        self, resources: list[ResourceInfo], templates: list[ResourceTemplateInfo], error: str = ""
    ) -> None:
        """Show the listed resources and templates (and why they could not be listed)."""
        show_list_error(self.error, error)
        self.tree.clear()
        self._group("Resources", [(r, [r.name, r.uri, r.mime_type]) for r in resources])
        self._group("Templates", [(t, [t.name, t.uri_template, t.mime_type]) for t in templates])
        self.tree.expandAll()
        for column in range(2):
            self.tree.resizeColumnToContents(column)

    def _group(self, title: str, rows: list[tuple[ResourceInfo | ResourceTemplateInfo, list[str]]]) -> None:
        group = QTreeWidgetItem(self.tree, [f"{title} ({len(rows)})"])
        group.setFirstColumnSpanned(True)
        group.setFlags(group.flags() & ~Qt.ItemFlag.ItemIsSelectable)
        for entry, cells in rows:
            child = QTreeWidgetItem(group, cells)
            child.setToolTip(1, cells[1])
            child.setData(0, ROLE, entry)

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
        entry = item.data(0, ROLE) if item is not None else None
        self.detail.set_form(None)
        self.read_button.setEnabled(entry is not None)
        self.template = entry if isinstance(entry, ResourceTemplateInfo) else None
        if not isinstance(entry, ResourceInfo | ResourceTemplateInfo):
            return
        set_description(self.description, entry.description or "No description.")
        if self.template is None:
            self.uri.setText(entry.uri if isinstance(entry, ResourceInfo) else "")
            return
        names = template_variables(self.template.uri_template)
        schema = {"type": "object", "properties": {n: {"type": "string"} for n in names}, "required": names}
        form = SchemaForm(schema, self)
        form.changed.connect(self._show_uri)
        self.detail.set_form(form)
        self._show_uri()

    def current_uri(self) -> str:
        """The URI that Read would read (a template with the variables filled in)."""
        if self.template is None:
            return self.uri.text()
        values = {k: str(v) for k, v in (self.form.value() if self.form else {}).items()}
        return expand(self.template.uri_template, values)

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
        self.detail.begin("Reading…")
        self._router.explore.read_resource(self.server_id, uri).then(self, self._shown, self._failed)

    def _shown(self, result: ResourceRead) -> None:
        self.result_view.show_contents(result, self.detail.finish())

    def _failed(self, error: BridgeError) -> None:
        self.detail.fail(error)
