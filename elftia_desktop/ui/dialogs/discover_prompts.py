"""The Prompts tab of the discover panel: pick a prompt, fill in its arguments, see the messages.

Prompt arguments are strings; the arguments form is the same generated form as for tools
(required arguments marked, optional ones said so), built from the prompt's argument list.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.ui.widgets.result_view import ResultView
from elftia_desktop.ui.widgets.schema_form import SchemaForm

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.bridge.router import McpRouter


def prompt_schema(prompt: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema for a prompt's arguments (each a string)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for argument in prompt.get("arguments") or []:
        name = str(argument.get("name", ""))
        properties[name] = {"type": "string", "description": str(argument.get("description") or "")}
        if argument.get("required"):
            required.append(name)
    return {"type": "object", "properties": properties, "required": required}


class PromptsPanel(QWidget):
    """The server's prompts; the chosen one gets an arguments form and Get prompt."""

    def __init__(self, router: McpRouter, server_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._router = router
        self.server_id = server_id
        self.prompts: list[dict[str, Any]] = []
        self.form: SchemaForm | None = None
        self._started = 0.0
        self.error = QLabel(self)
        self.error.setObjectName("FieldError")
        self.error.setWordWrap(True)
        self.error.hide()
        self.list = QListWidget(self)
        self.list.setToolTip("The server's prompts; choose one to fill in its arguments")
        self.list.currentRowChanged.connect(self._chosen)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.list)
        splitter.addWidget(self._detail())
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 5)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.error)
        layout.addWidget(splitter, 1)

    def _detail(self) -> QWidget:
        page = QWidget(self)
        self.description = QLabel("Choose a prompt.", page)
        self.description.setObjectName("Muted")
        self.description.setWordWrap(True)
        self.form_holder = QVBoxLayout()
        self.get_button = QPushButton("&Get prompt", page)
        self.get_button.setObjectName("Primary")
        self.get_button.setAutoDefault(False)
        self.get_button.setToolTip("Check the arguments, then ask the server for the prompt's messages")
        self.get_button.setEnabled(False)
        self.get_button.clicked.connect(self.get_prompt)
        self.status = QLabel("", page)
        self.status.setObjectName("Muted")
        row = QHBoxLayout()
        row.addWidget(self.get_button)
        row.addWidget(self.status, 1)
        self.result_view = ResultView(page)
        self.result_view.clear("The rendered messages appear here.")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(8, 0, 0, 0)
        layout.addWidget(self.description)
        layout.addLayout(self.form_holder, 2)
        layout.addLayout(row)
        layout.addWidget(self.result_view, 3)
        return page

    def set_prompts(self, prompts: list[dict[str, Any]], error: str = "") -> None:
        """Show the listed prompts (and why they could not be listed)."""
        self.error.setText(f"Could not be listed: {error}" if error else "")
        self.error.setVisible(bool(error))
        self.prompts = list(prompts)
        self.list.clear()
        for prompt in self.prompts:
            item = QListWidgetItem(str(prompt.get("title") or prompt.get("name", "")))
            item.setToolTip(str(prompt.get("description") or ""))
            self.list.addItem(item)
        if self.prompts:
            self.list.setCurrentRow(0)
        else:
            self.description.setText("This server offers no prompts.")

    def _chosen(self, row: int) -> None:
        if self.form is not None:
            self.form_holder.removeWidget(self.form)
            self.form.hide()
            self.form.deleteLater()
            self.form = None
        if not 0 <= row < len(self.prompts):
            self.get_button.setEnabled(False)
            return
        prompt = self.prompts[row]
        self.description.setText(str(prompt.get("description") or "No description."))
        self.form = SchemaForm(prompt_schema(prompt), self)
        self.form_holder.addWidget(self.form)
        self.get_button.setEnabled(True)
        self.status.setText("")
        self.result_view.clear("The rendered messages appear here.")

    def get_prompt(self) -> None:
        """Validate the arguments and ask for the prompt."""
        row = self.list.currentRow()
        if self.form is None or not 0 <= row < len(self.prompts):
            return
        issues = self.form.validate()
        if issues:
            self.status.setText(f"Not sent: {len(issues)} argument problem{'s' if len(issues) != 1 else ''}.")
            return
        name = str(self.prompts[row].get("name", ""))
        arguments = {k: str(v) for k, v in self.form.value().items()}
        self.get_button.setEnabled(False)
        self.status.setText("Asking…")
        self._started = time.perf_counter()
        self._router.explore.get_prompt(
            self.server_id,
            name,
            arguments,
            receiver=self,
            on_done=self._shown,
            on_error=self._failed,
        )

    def _elapsed(self) -> float:
        return (time.perf_counter() - self._started) * 1000

    def _shown(self, result: dict[str, Any]) -> None:
        self.get_button.setEnabled(True)
        self.status.setText("")
        self.result_view.show_messages(result, self._elapsed())

    def _failed(self, error: BridgeError) -> None:
        self.get_button.setEnabled(True)
        self.status.setText("")
        self.result_view.show_failure(f"{error.kind}: {error.message}", self._elapsed())
