"""What the Prompts and Resources tabs share: the list beside a detail pane with one action.

:func:`explore_layout` lays a tab out (an error line, the list on the left, the detail on the
right); :class:`DetailPane` is the detail: a description, an optional line under it, the
form of the chosen item, the action button with its status, and the result with its time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSplitter, QVBoxLayout, QWidget

from elftia_desktop.ui.widgets.result_view import ResultView
from elftia_desktop.ui.widgets.schema_form import SchemaForm

if TYPE_CHECKING:
    from elftia_desktop.bridge.errors import BridgeError


class DetailPane(QWidget):
    """The chosen item: description, extra line, form, action button and status, result view."""

    def __init__(
        self,
        parent: QWidget,
        *,
        choose: str,
        action: tuple[str, str, Callable[[], None]],
        empty_result: str,
        extra: QWidget | None = None,
        form_stretch: int = 2,
    ) -> None:
        """``action`` is (button text, tooltip, what it runs); ``empty_result`` shows before any result."""
        super().__init__(parent)
        self.empty_result = empty_result
        self.form: SchemaForm | None = None
        self._started = 0.0
        self.description = QLabel(choose, self)
        self.description.setObjectName("Muted")
        self.description.setWordWrap(True)
        self.form_holder = QVBoxLayout()
        text, tip, run = action
        self.button = QPushButton(text, self)
        self.button.setObjectName("Primary")
        self.button.setAutoDefault(False)
        self.button.setToolTip(tip)
        self.button.setEnabled(False)
        self.button.clicked.connect(run)
        self.status = QLabel("", self)
        self.status.setObjectName("Muted")
        row = QHBoxLayout()
        row.addWidget(self.button)
        row.addWidget(self.status, 1)
        self.result_view = ResultView(self)
        self.result_view.clear(empty_result)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 0, 0, 0)
        layout.addLayout(row)  # first: the action button stays put whatever the description and form take
        layout.addWidget(self.description)
        if extra is not None:
            layout.addWidget(extra)
        layout.addLayout(self.form_holder, form_stretch)
        layout.addWidget(self.result_view, 3)

    def set_form(self, form: SchemaForm | None) -> None:
        """Put ``form`` in place of the current one (None: no form); the status and result are cleared."""
        if self.form is not None:
            self.form_holder.removeWidget(self.form)
            self.form.hide()
            self.form.deleteLater()
        self.form = form
        if form is not None:
            self.form_holder.addWidget(form)
        self.status.setText("")
        self.result_view.clear(self.empty_result)

    def begin(self, status: str) -> None:
        """A request went out: the button waits, the status says so, the clock starts."""
        self.button.setEnabled(False)
        self.status.setText(status)
        self._started = time.perf_counter()

    def finish(self) -> float:
        """The answer came: the button is back; milliseconds since :meth:`begin`."""
        self.button.setEnabled(True)
        self.status.setText("")
        return (time.perf_counter() - self._started) * 1000

    def fail(self, error: BridgeError) -> None:
        """Show why the request failed, with its time."""
        elapsed = self.finish()
        self.result_view.show_failure(f"{error.kind}: {error.message}", elapsed)


def explore_layout(tab: QWidget, picker: QWidget, detail: QWidget, stretch: tuple[int, int]) -> QLabel:
    """Lay ``tab`` out: an error line over the list (``picker``, left) and ``detail`` (right); the error line.

    ``stretch`` is the (list, detail) width ratio.
    """
    error = QLabel(tab)
    error.setObjectName("FieldError")
    error.setWordWrap(True)
    error.hide()
    splitter = QSplitter(Qt.Orientation.Horizontal, tab)
    splitter.addWidget(picker)
    splitter.addWidget(detail)
    splitter.setStretchFactor(0, stretch[0])
    splitter.setStretchFactor(1, stretch[1])
    layout = QVBoxLayout(tab)
    layout.setContentsMargins(8, 8, 8, 8)
    layout.addWidget(error)
    layout.addWidget(splitter, 1)
    return error


def show_list_error(label: QLabel, error: str) -> None:
    """Say on ``label`` why the list could not be fetched (empty: hide it)."""
    label.setText(f"Could not be listed: {error}" if error else "")
    label.setVisible(bool(error))
