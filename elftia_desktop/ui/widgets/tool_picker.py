"""``ToolPicker`` (the original's ``useMcpMode`` picker): which of its tools an agent gets.

The tools grouped by server with a checkbox per tool and per server, a filter, the count, the
tokens of the definitions per provider, a warning by name above a provider's tool limit, and a
preview of the exact payload per provider with the converter's notes and a copy button. The
picker only shows; its owner fetches tools and previews through the router.
"""

from __future__ import annotations

import json
from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.ui.models.tool_tree_model import ToolTreeModel
from elftia_desktop.ui.theme import is_dark
from elftia_desktop.ui.widgets.notice_bar import NoticeBar

if TYPE_CHECKING:
    from elftia_desktop.core.models import Agent, MCPTool, ProviderPayload


def legible_checkboxes(view: QWidget) -> None:
    """In a dark palette, give the check boxes (or radio buttons) of ``view`` a visible outline.

    Fusion draws the outline of an unticked box from the Window colour darkened, which vanishes
    on a dark Base; a light Window colour for the view only makes the box's edge show.
    """
    palette = view.palette()
    if is_dark(palette):
        palette.setColor(QPalette.ColorRole.Window, QColor("#a4a9b1"))
        view.setPalette(palette)


def token_count_text(tokens: int, exact: bool) -> str:
    """``1 token``, ``1,356 tokens``, or ``≈1,356 tokens`` for an estimate."""
    return f"{'' if exact else '≈'}{tokens:,} token{'' if tokens == 1 else 's'}"


def _tokens_text(payload: ProviderPayload) -> str:
    mark = "" if payload.tokens_exact else "≈"
    return f"{payload.label} {mark}{payload.tokens:,}"


TOOL_NAMES_NOTE = (
    "Tool names: mcp__<server>__<tool> here and in elftia-mcp tools --format; apps connected through "
    "the gateway (elftia-mcp serve) see the same tool as <server>__<tool>."
)
"""Which name each place gives a tool (the payload's provider name, the gateway's prefixed name)."""


class ToolPicker(QWidget):
    """Tick the tools an agent gets and see what each provider would receive.

    Signals:
        checksChanged(): the user ticked or unticked tools (the owner asks for a new preview).
        tryRequested(object): the user wants to call this ``MCPTool`` (Try…, or double-click on a tool).
    """

    checksChanged = Signal()
    tryRequested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ToolTreeModel(self)
        self.payloads: list[ProviderPayload] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._build_bar())
        self.tokens = QLabel("Tokens: …")
        self.tokens.setObjectName("Muted")
        self.tokens.setWordWrap(True)
        layout.addWidget(self.tokens)
        self.warning = NoticeBar()
        layout.addWidget(self.warning)
        self.problems = QLabel()
        self.problems.setObjectName("Muted")
        self.problems.setWordWrap(True)
        self.problems.hide()
        layout.addWidget(self.problems)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self._build_tree())
        split.addWidget(self._build_preview())
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout.addWidget(split, 1)
        self.model.checksChanged.connect(self._on_checks)
        self._update_count()

    def _build_bar(self) -> QHBoxLayout:
        bar = QHBoxLayout()
        self.filter = QLineEdit(placeholderText="Filter tools…")
        self.filter.setClearButtonEnabled(True)
        self.filter.setToolTip("Show only tools whose name, description or server contains this text")
        self.filter.textChanged.connect(self.set_filter)
        bar.addWidget(self.filter, 1)
        self.count = QLabel()
        bar.addWidget(self.count)
        self.try_button = QPushButton("&Try…")
        self.try_button.setToolTip("Call the selected tool with arguments you fill in (or double-click a tool)")
        self.try_button.setEnabled(False)
        self.try_button.clicked.connect(self._try_selected)
        bar.addWidget(self.try_button)
        for label, tip, checked in (("All", "Tick every tool", True), ("None", "Untick every tool", False)):
            button = QPushButton(label)
            button.setToolTip(tip)
            button.clicked.connect(lambda _=False, c=checked: self.model.set_all(c))
            bar.addWidget(button)
        return bar

    def _build_tree(self) -> QTreeView:
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setRootIsDecorated(False)
        self.tree.setItemsExpandable(False)
        self.tree.doubleClicked.connect(self._double_clicked)
        self.tree.setAlternatingRowColors(True)
        self.tree.setAccessibleName("Tools by server")
        legible_checkboxes(self.tree)
        self.tree.selectionModel().currentRowChanged.connect(
            lambda current, _previous: self.try_button.setEnabled(self.model.tool_at(current.row()) is not None)
        )
        header = self.tree.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(0, 240)
        return self.tree

    def _double_clicked(self, index: QModelIndex) -> None:
        tool = self.model.tool_at(index.row())
        if tool is None:
            self.model.toggle_fold(index.row())
        else:
            self.tryRequested.emit(tool)

    def _try_selected(self) -> None:
        tool = self.model.tool_at(self.tree.currentIndex().row())
        if tool is not None:
            self.tryRequested.emit(tool)

    def _build_preview(self) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 4, 0, 0)
        row = QHBoxLayout()
        row.addWidget(QLabel("Payload for"))
        self.provider = QComboBox()
        self.provider.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.provider.setMinimumContentsLength(24)
        self.provider.setToolTip("The provider whose request you see: the exact tools field it would receive")
        self.provider.currentIndexChanged.connect(self._show_payload)
        row.addWidget(self.provider)
        self.provider_info = QLabel()
        self.provider_info.setObjectName("Muted")
        row.addWidget(self.provider_info, 1)
        self.copy = QPushButton("&Copy")
        self.copy.setToolTip("Copy this payload as JSON")
        self.copy.clicked.connect(self.copy_payload)
        row.addWidget(self.copy)
        column.addLayout(row)
        fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.payload_view = QPlainTextEdit(readOnly=True)
        self.payload_view.setFont(fixed)
        self.payload_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.payload_view.setPlaceholderText("The payload appears here once the tools are loaded.")
        column.addWidget(self.payload_view, 3)
        self.notes_view = QPlainTextEdit(readOnly=True)
        self.notes_view.setPlaceholderText("What the converter changed for this provider appears here.")
        self.notes_view.setMaximumHeight(96)
        column.addWidget(self.notes_view, 1)
        self.names_note = QLabel(TOOL_NAMES_NOTE)
        self.names_note.setObjectName("Muted")
        self.names_note.setWordWrap(True)
        column.addWidget(self.names_note)
        return box

    # -- content -------------------------------------------------------------------------------

    def set_tools(self, tools: list[MCPTool], agent: Agent | None, problems: dict[str, str] | None = None) -> None:
        """Offer ``tools`` ticked as ``agent`` allows; ``problems``: server name -> why its tools are missing."""
        self.model.set_tools(tools, agent)
        problems = problems or {}
        lines = [
            f"<b>{escape(name)}</b>: {escape(reason.strip().splitlines()[0])}" for name, reason in problems.items()
        ]
        self.problems.setText("Not offered: " + "; ".join(lines) if lines else "")
        self.problems.setToolTip("\n\n".join(f"{name}: {reason}" for name, reason in problems.items()))
        self.problems.setVisible(bool(problems))
        self._update_count()

    def set_filter(self, text: str) -> None:
        """Filter the tree (the filter box calls this on every keystroke)."""
        self.model.set_filter(text)
        self._update_count()

    def set_preview(self, payloads: list[ProviderPayload]) -> None:
        """Show the payloads per provider, their tokens and any tool-limit warning."""
        self.payloads = list(payloads)
        current = self.provider.currentIndex()
        self.provider.blockSignals(True)
        self.provider.clear()
        for payload in self.payloads:
            self.provider.addItem(f"{payload.label} ({payload.tool_count} tools)", payload.format)
        self.provider.setCurrentIndex(max(0, min(current, len(self.payloads) - 1)))
        self.provider.blockSignals(False)
        self._show_payload()
        self._show_tokens()
        self._show_limits()

    def _show_tokens(self) -> None:
        if not self.payloads:
            self.tokens.setText("Tokens: …")
            return
        by_method: dict[str, list[str]] = {}
        for payload in self.payloads:
            by_method.setdefault(payload.token_method, []).append(payload.label)
        how = " · ".join(f"{', '.join(labels)}: {method}" for method, labels in by_method.items())
        self.tokens.setText(
            "Tokens of the tool definitions: "
            + " · ".join(_tokens_text(p) for p in self.payloads)
            + f"<br><small>{escape(how)}</small>"
        )

    def _show_limits(self) -> None:
        over = [p for p in self.payloads if p.skipped and p.limit is not None]
        if not over:
            self.warning.hide()
            return
        labels = " and ".join(p.label for p in over)
        first = over[0]
        names = ", ".join(first.skipped[:12]) + (
            f" and {len(first.skipped) - 12} more" if len(first.skipped) > 12 else ""
        )
        ticked = first.tool_count + len(first.skipped)
        self.warning.show_message(
            f"<b>{escape(labels)}</b> accept at most {first.limit} tools per request; {ticked} are ticked. "
            f"These {len(first.skipped)} would be left out: {escape(names)}. Untick some tools.",
            "warning",
        )

    def _show_payload(self) -> None:
        index = self.provider.currentIndex()
        if not 0 <= index < len(self.payloads):
            self.payload_view.setPlainText("")
            self.notes_view.setPlainText("")
            self.provider_info.setText("")
            return
        payload = self.payloads[index]
        self.payload_view.setPlainText(json.dumps(payload.payload, indent=2, ensure_ascii=False))
        notes = payload.notes
        self.notes_view.setPlainText("\n".join(notes) if notes else f"Sent unchanged to {payload.label}.")
        if not payload.tool_count:
            self.provider_info.setText("No tools ticked: nothing is sent")
            return
        changes = f"{len(notes)} change{'' if len(notes) == 1 else 's'}"
        self.provider_info.setText(f"{token_count_text(payload.tokens, payload.tokens_exact)} · {changes}")

    def copy_payload(self) -> None:
        """Put the shown payload on the clipboard."""
        QGuiApplication.clipboard().setText(self.payload_view.toPlainText())

    def _on_checks(self) -> None:
        self._update_count()
        self.checksChanged.emit()

    def _update_count(self) -> None:
        total, ticked, shown = self.model.total(), self.model.checked_count(), self.model.shown_count()
        text = f"{ticked} of {total} tools selected"
        if shown != total:
            text += f" · {shown} shown"
        self.count.setText(text)
