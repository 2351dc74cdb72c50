"""The Prompts tab of the discover panel: pick a prompt, fill in its arguments, see the messages.

Prompt arguments are strings; the arguments form is the same generated form as for tools
(required arguments marked, optional ones said so), built from the prompt's argument list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QListWidget,
    QListWidgetItem,
    QWidget,
)

from elftia_desktop.ui.dialogs.explore_pane import DetailPane, explore_layout, show_list_error
from elftia_desktop.ui.widgets.inline_code import set_description
from elftia_desktop.ui.widgets.schema_form import SchemaForm

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError
    from elftia_desktop.bridge.results import JsonDict
    from elftia_desktop.bridge.results_explore import PromptInfo, RenderedPrompt
    from elftia_desktop.bridge.router import McpRouter


def prompt_schema(prompt: PromptInfo) -> JsonDict:
    """A JSON schema for a prompt's arguments (each a string): the arguments form is built from it."""
    properties = {a.name: {"type": "string", "description": a.description} for a in prompt.arguments}
    required = [a.name for a in prompt.arguments if a.required]
    return {"type": "object", "properties": properties, "required": required}


class PromptsPanel(QWidget):
    """The server's prompts; the chosen one gets an arguments form and Get prompt."""

    def __init__(self, router: McpRouter, server_id: str, parent: QWidget | None = None) -> None:
        """An empty tab for ``server_id``'s prompts (fill it with :meth:`set_prompts`)."""
        super().__init__(parent)
        self._router = router
        self.server_id = server_id
        self.prompts: list[PromptInfo] = []
        self.list = QListWidget(self)
        self.list.setToolTip("The server's prompts; choose one to fill in its arguments")
        self.list.currentRowChanged.connect(self._chosen)
        tip = "Check the arguments, then ask the server for the prompt's messages"
        self.detail = DetailPane(
            self,
            choose="Choose a prompt.",
            action=("&Get prompt", tip, self.get_prompt),
            empty_result="The rendered messages appear here.",
        )
        self.description, self.get_button = self.detail.description, self.detail.button
        self.status, self.result_view = self.detail.status, self.detail.result_view
        self.error = explore_layout(self, self.list, self.detail, (2, 5))

    @property
    def form(self) -> SchemaForm | None:
        """The arguments form of the chosen prompt."""
        return self.detail.form

    def set_prompts(self, prompts: list[PromptInfo], error: str = "") -> None:
        """Show the listed prompts (and why they could not be listed)."""
        show_list_error(self.error, error)
        self.prompts = list(prompts)
        self.list.clear()
        for prompt in self.prompts:
            item = QListWidgetItem(prompt.label)
            item.setToolTip(prompt.description)
            self.list.addItem(item)
        if self.prompts:
            self.list.setCurrentRow(0)
        else:
            self.description.setText("This server offers no prompts.")

    def _chosen(self, row: int) -> None:
        if not 0 <= row < len(self.prompts):
            self.detail.set_form(None)
            self.get_button.setEnabled(False)
            return
        prompt = self.prompts[row]
        set_description(self.description, prompt.description or "No description.")
        self.detail.set_form(SchemaForm(prompt_schema(prompt), self))
        self.get_button.setEnabled(True)

    def get_prompt(self) -> None:
        """Validate the arguments and ask for the prompt."""
        row = self.list.currentRow()
        if self.form is None or not 0 <= row < len(self.prompts):
            return
        issues = self.form.validate()
        if issues:
            self.status.setText(f"Not sent: {len(issues)} argument problem{'s' if len(issues) != 1 else ''}.")
            return
        name = self.prompts[row].name
        arguments = {k: str(v) for k, v in self.form.value().items()}
        self.detail.begin("Asking…")
        self._router.explore.get_prompt(self.server_id, name, arguments).then(self, self._shown, self._failed)

    def _shown(self, result: RenderedPrompt) -> None:
        self.result_view.show_messages(result, self.detail.finish())

    def _failed(self, error: BridgeError) -> None:
        self.detail.fail(error)
