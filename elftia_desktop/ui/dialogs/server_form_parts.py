"""Parts of the server form: the preset gallery, the transport switch, the dependency status
and a folder picker. Each part is self-contained; ``server_form.py`` lays them out.
"""

from __future__ import annotations

import contextlib

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QPainter
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import DependencyCheckResult, DependencyInstallResult
from elftia_desktop.core.presets import McpPreset
from elftia_desktop.ui.theme import STATE_COLORS, muted_text_color
from elftia_desktop.ui.widgets.elided import ElidedLabel
from elftia_desktop.ui.widgets.fixed_space import keep_place

TRANSPORTS = (
    ("stdio", "stdio", "Start a local program and talk over its stdin/stdout"),
    ("sse", "SSE", "Connect to a server URL with Server-Sent Events (older HTTP transport)"),
    ("http", "Streamable HTTP", "Connect to a server URL with Streamable HTTP (current HTTP transport)"),
)
CHECK_DELAY_MS = 400
WIDEST_STATUS = "✓ python 3.12.10"
"""The longest usual status beside the command (without Install); a longer one is shortened with "…"."""
PRESET_ROLE = Qt.ItemDataRole.UserRole + 1


CUSTOM = ("Custom server", "", "Fill in every field yourself")
"""The gallery's first entry (no preset): name, category, description."""


def _shown(preset: McpPreset | None) -> tuple[str, str, str]:
    """The name, category and description the gallery shows for ``preset`` (None: the custom entry)."""
    return CUSTOM if preset is None else (preset.name, preset.category, preset.description)


class _PresetDelegate(QStyledItemDelegate):
    """Paints a preset: name in bold, category on the right, description muted below."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        """Two lines of text and a margin."""
        height = option.fontMetrics.height()
        return QSize(200, height * 2 + 16)

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        """Draw the name, the category and the description of the preset."""
        preset: McpPreset | None = index.data(PRESET_ROLE)
        name, category, description = _shown(preset)
        self.initStyleOption(option, index)
        option.text = ""
        style = option.widget.style() if option.widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, option.widget)
        rect: QRect = option.rect.adjusted(8, 6, -8, -6)
        metrics = option.fontMetrics
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        text_color = option.palette.highlightedText() if selected else option.palette.text()
        painter.save()
        bold = QFont(option.font)
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(text_color.color())
        cat_width = metrics.horizontalAdvance(category) + 4 if category else 0
        title_rect = QRect(rect.left(), rect.top(), rect.width() - cat_width, metrics.height())
        name = painter.fontMetrics().elidedText(name, Qt.TextElideMode.ElideRight, title_rect.width())
        painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, name)
        painter.setFont(option.font)
        muted = text_color.color() if selected else muted_text_color(option.palette)
        painter.setPen(muted)
        if category:
            painter.drawText(
                rect.adjusted(0, 0, 0, -(rect.height() - metrics.height())),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                category,
            )
        desc_rect = QRect(rect.left(), rect.top() + metrics.height() + 2, rect.width(), metrics.height())
        desc = metrics.elidedText(description, Qt.TextElideMode.ElideRight, desc_rect.width())
        painter.drawText(desc_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, desc)
        painter.restore()


class PresetGallery(QWidget):
    """A searchable list of presets; the first entry is a blank custom server.

    Signals:
        presetChosen(object): the ``McpPreset``, or None for a custom server.
    """

    presetChosen = Signal(object)

    def __init__(self, presets: list[McpPreset], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        title = QLabel("Start from a &preset", self)
        title.setObjectName("CardTitle")
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search presets")
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip("Filter the presets by name, description or category")
        title.setBuddy(self.search)
        self.list = QListWidget(self)
        self.list.setItemDelegate(_PresetDelegate(self.list))
        self.list.setToolTip("Pick a preset to fill in the form; you can change every field afterwards")
        self.list.setUniformItemSizes(True)
        self.list.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)
        self.set_presets(presets)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(title)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        self.search.textChanged.connect(self._filter)
        self.list.currentItemChanged.connect(self._chosen)
        self.search.returnPressed.connect(self.list.setFocus)

    def set_presets(self, presets: list[McpPreset]) -> None:
        """Show ``presets`` after the blank custom entry."""
        self.list.blockSignals(True)
        self.list.clear()
        for preset in [None, *presets]:
            name, _category, description = _shown(preset)
            item = QListWidgetItem(name, self.list)
            item.setData(PRESET_ROLE, preset)
            item.setToolTip(description)
        self.list.setCurrentRow(0)
        self.list.blockSignals(False)

    def choose(self, preset_id: str) -> None:
        """Select the preset with ``id``."""
        for row in range(self.list.count()):
            preset: McpPreset | None = self.list.item(row).data(PRESET_ROLE)
            if preset is not None and preset.id == preset_id:
                self.list.setCurrentRow(row)
                return

    def _filter(self, text: str) -> None:
        needle = text.strip().lower()
        for row in range(self.list.count()):
            item = self.list.item(row)
            haystack = " ".join(_shown(item.data(PRESET_ROLE))).lower()
            item.setHidden(bool(needle) and needle not in haystack and row != 0)

    def _chosen(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if current is not None:
            self.presetChosen.emit(current.data(PRESET_ROLE))


class TransportSwitch(QWidget):
    """A segmented control: stdio / SSE / Streamable HTTP.

    Signals:
        changed(str): the chosen transport value (``stdio``, ``sse``, ``http``).
    """

    changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QPushButton] = {}
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        for index, (value, label, tip) in enumerate(TRANSPORTS):
            button = QPushButton(label, self)
            button.setCheckable(True)
            button.setToolTip(tip)
            button.setObjectName("SegmentFirst" if index == 0 else "SegmentLast" if index == 2 else "Segment")
            self.group.addButton(button)
            self.buttons[value] = button
            layout.addWidget(button)
        layout.addStretch(1)
        self.buttons["stdio"].setChecked(True)
        self.group.buttonToggled.connect(self._toggled)

    def value(self) -> str:
        """The chosen transport."""
        return next(v for v, b in self.buttons.items() if b.isChecked())

    def set_value(self, value: str) -> None:
        """Choose a transport (``stdio``, ``sse``, ``http``)."""
        self.buttons.get(value, self.buttons["stdio"]).setChecked(True)

    def focus_target(self) -> QWidget:
        """The checked button (the label's buddy)."""
        return self.buttons[self.value()]

    def _toggled(self, button: QAbstractButton, checked: bool) -> None:
        if checked:
            self.changed.emit(self.value())


class FolderPicker(QWidget):
    """A folder path field with a Browse button.

    Signals:
        changed(): the path changed.
    """

    changed = Signal()

    def __init__(self, placeholder: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._title = title
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText(placeholder)
        self.edit.setToolTip(placeholder)
        self.browse = QPushButton("Browse…", self)
        self.browse.setToolTip(f"{title}: pick a folder")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.browse)
        self.setFocusProxy(self.edit)
        self.edit.textChanged.connect(self.changed)
        self.browse.clicked.connect(self._pick)

    def text(self) -> str:
        """The path, trimmed."""
        return self.edit.text().strip()

    def set_text(self, text: str) -> None:
        """Set the path."""
        self.edit.setText(text)

    def _pick(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self._title, self.text())
        if folder:
            self.edit.setText(folder)


class DependencyStatus(QWidget):
    """Beside the command: is its runtime installed (``✓ node 20.1`` / ``✗ not found``), and Install.

    The check runs ``CHECK_DELAY_MS`` after the last keystroke; late answers for an older
    command are dropped.
    """

    def __init__(self, router: McpRouter | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._router = router
        self._command = ""
        self.result: DependencyCheckResult | None = None
        self.label = ElidedLabel(Qt.TextElideMode.ElideRight, self)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.install = QPushButton("&Install", self)
        self.install.setToolTip("Install the missing runtime into Elftia's own tools folder")
        self.install.hide()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(CHECK_DELAY_MS)
        self._timer.timeout.connect(self._run)
        layout = self._row = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.install)
        self.install.clicked.connect(self._install)
        keep_place(self.install)
        # one size whatever it says (checking, found, not found, Install): the command field never changes
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setVisible(router is not None)

    def sizeHint(self) -> QSize:
        """Room for the widest usual status and the Install button (kept while it is hidden)."""
        button = self.install.sizeHint()
        room = self.fontMetrics().horizontalAdvance(WIDEST_STATUS) + 4 + max(self._row.spacing(), 0)
        return QSize(room + button.width(), button.height())

    def minimumSizeHint(self) -> QSize:
        """As big as :meth:`sizeHint`: never squeezed, never grown."""
        return self.sizeHint()

    def schedule(self, command: str) -> None:
        """Check ``command`` after a pause in typing."""
        self._command = command.strip()
        self.result = None
        self.install.hide()
        if self._router is None or not self._command:
            self._show("")
            self._timer.stop()
            return
        self._show("…")
        self.label.setToolTip("Checking whether the command is installed")
        self._timer.start()

    def _run(self) -> None:
        assert self._router is not None
        command = self._command
        self._show("Checking…")
        self._router.deps.check(command).then(
            self, lambda result: self._checked(command, result), lambda error: self._failed(command, error)
        )

    def _checked(self, command: str, result: DependencyCheckResult) -> None:
        if command != self._command:
            return
        self.result = result
        name = result.runtime or result.command
        if result.installed and result.meets_minimum:
            text = f"✓ {name} {result.version or ''}".strip()
            self._show(text, STATE_COLORS["connected"])
        elif result.installed:
            text = f"⚠ {name} {result.version or ''} is too old".strip()
            self._show(text, STATE_COLORS["connecting"])
        else:
            self._show("✗ not found", STATE_COLORS["error"])
        tips = [result.path or "", result.reason or "", result.instructions or ""]
        self.label.setToolTip("\n".join(t for t in tips if t) or f"{command} is installed")
        self.install.setVisible(result.installable and not (result.installed and result.meets_minimum))

    def _failed(self, command: str, error: BridgeError) -> None:
        if command == self._command:
            self._show("✗ check failed", STATE_COLORS["error"])
            self.label.setToolTip(error.message)

    def _install(self) -> None:
        assert self._router is not None
        command = self._command
        self.install.setEnabled(False)
        self._show("Installing…")
        self._router.deps.install(command).progress(self, lambda report: self._progress(report.message or "")).then(
            self, lambda result: self._installed(command, result), lambda error: self._install_failed(command, error)
        )
        self._router.signals.logLine.connect(self._log_line)

    def _log_line(self, source: str, line: str) -> None:
        if source == f"deps:{self._command}":
            self._progress(line)

    def _progress(self, line: str) -> None:
        self._show(f"Installing… {line[:60]}")
        self.label.setToolTip(line)

    def _installed(self, command: str, result: DependencyInstallResult) -> None:
        self._disconnect_log()
        self.install.setEnabled(True)
        if result.success:
            self.schedule(command)
            self._timer.start(0)
            return
        self._show("✗ install failed", STATE_COLORS["error"])
        self.label.setToolTip("\n".join(t for t in (result.error or "", result.instructions or "") if t))

    def _install_failed(self, command: str, error: BridgeError) -> None:
        self._disconnect_log()
        self.install.setEnabled(True)
        self._show("✗ install failed", STATE_COLORS["error"])
        self.label.setToolTip(error.message)

    def _disconnect_log(self) -> None:
        if self._router is not None:
            with contextlib.suppress(RuntimeError, TypeError):
                self._router.signals.logLine.disconnect(self._log_line)

    def _show(self, text: str, color: str = "") -> None:
        """One line in ``color`` (none: muted), shortened to the status's width (the tooltip says more)."""
        self.label.setStyleSheet(f"color: {color or muted_text_color(self.palette()).name()}")
        self.label.set_full_text(text)
