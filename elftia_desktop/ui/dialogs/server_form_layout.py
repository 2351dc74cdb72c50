"""The widgets and layout of ``McpServerForm``: fields, inline error labels, the button bar."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import ENV_KEY_PATTERN, HEADER_NAME_PATTERN
from elftia_desktop.core.presets import McpPreset
from elftia_desktop.ui.dialogs.preset_values import PresetValues
from elftia_desktop.ui.dialogs.server_form_auth import AuthSection
from elftia_desktop.ui.dialogs.server_form_parts import (
    DependencyStatus,
    FolderPicker,
    PresetGallery,
    TransportSwitch,
)
from elftia_desktop.ui.dialogs.server_form_sandbox import SandboxSection
from elftia_desktop.ui.theme import ACCENT, card_colors
from elftia_desktop.ui.widgets.details_box import details_box
from elftia_desktop.ui.widgets.fixed_space import reserve_lines
from elftia_desktop.ui.widgets.key_value_editor import KeyValueEditor
from elftia_desktop.ui.widgets.list_editor import ListEditor
from elftia_desktop.ui.widgets.notice_bar import NoticeBar

STDIO_FIELDS = ("command", "args", "env", "cwd", "sandbox")
HTTP_FIELDS = ("url", "auth", "headers")
PICK_HINT = "Pick a preset on the left to fill in the form, or fill in every field yourself."


def local_style(dialog: QWidget) -> str:
    """Segmented transport buttons and section titles, for the dialog's palette."""
    card_bg, border = card_colors(dialog.palette())
    return f"""
    QPushButton#SegmentFirst, QPushButton#Segment, QPushButton#SegmentLast {{
        padding: 5px 14px; border: 1px solid {border}; background: {card_bg}; border-radius: 0; }}
    QPushButton#Segment, QPushButton#SegmentLast {{ border-left: none; }}
    QPushButton#SegmentFirst {{ border-top-left-radius: 6px; border-bottom-left-radius: 6px; }}
    QPushButton#SegmentLast {{ border-top-right-radius: 6px; border-bottom-right-radius: 6px; }}
    QPushButton#SegmentFirst:checked, QPushButton#Segment:checked, QPushButton#SegmentLast:checked {{
        background: {ACCENT}; color: white; border-color: {ACCENT}; }}
    QPushButton#SegmentFirst:focus, QPushButton#Segment:focus, QPushButton#SegmentLast:focus {{
        border: 2px solid {ACCENT}; }}
    QPushButton#SegmentFirst:checked:focus, QPushButton#Segment:checked:focus,
    QPushButton#SegmentLast:checked:focus {{ border: 2px solid #2a3c9e; }}
    QLabel#SectionTitle {{ font-weight: 600; font-size: 11pt; padding-top: 10px; }}
    QFrame#GalleryPanel {{ border-right: 1px solid {border}; }}
    """


def _spin(tooltip: str) -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setRange(0, 3600)
    spin.setDecimals(0)
    spin.setSuffix(" s")
    spin.setSpecialValueText("Default")
    spin.setToolTip(tooltip)
    spin.setFixedWidth(130)
    return spin


class FormLayout:
    """Creates the form's widgets on ``dialog`` and lays them out."""

    def __init__(self, dialog: QDialog, router: McpRouter | None, with_gallery: bool) -> None:
        self.dialog = dialog
        self.error_labels: dict[str, QLabel] = {}
        self.rows: dict[str, QWidget] = {}
        self._make_fields(dialog, router)
        self._make_buttons(dialog)
        self.gallery = PresetGallery([], dialog)
        self.gallery.setVisible(with_gallery)
        self.preset_info = QLabel(PICK_HINT, dialog)
        self.preset_info.setObjectName("Muted")
        self.preset_info.setWordWrap(True)
        self.preset_info.setOpenExternalLinks(True)
        self.preset_info.setContentsMargins(16, 10, 16, 0)
        reserve_lines(self.preset_info, 2)  # a chosen preset's description moves no field under the pointer
        self.preset_info.setFixedHeight(self.preset_info.maximumHeight() + 10)
        self.preset_info.setVisible(with_gallery)
        self.link_notice = NoticeBar(dialog)
        self._arrange(dialog, with_gallery)
        dialog.setStyleSheet(local_style(dialog))

    def _make_fields(self, dialog: QDialog, router: McpRouter | None) -> None:
        self.preset_values = PresetValues(dialog)
        self.name = QLineEdit(dialog)
        self.name.setPlaceholderText("e.g. filesystem")
        self.name.setToolTip("A unique name; agents see tools as mcp__<name>__<tool>")
        self.transport = TransportSwitch(dialog)
        self.command = QLineEdit(dialog)
        self.command.setPlaceholderText("npx, uvx, python, docker or a full path")
        self.command.setToolTip("The program to start; put its arguments in the rows below")
        self.dependency = DependencyStatus(router, dialog)
        self.command_hint = QLabel('<a href="split">Split into command and arguments</a>', dialog)
        self.command_hint.setToolTip("The command contains spaces: move everything after the first word to Arguments")
        self.command_hint.hide()
        self.args = ListEditor(parent=dialog)
        self.env = KeyValueEditor("variable", ENV_KEY_PATTERN, "Add &variable", "NAME", dialog)
        self.cwd = FolderPicker("The server's folder (optional)", "Working folder", dialog)
        self.url = QLineEdit(dialog)
        self.url.setPlaceholderText("https://example.com/mcp")
        self.url.setToolTip("The server's endpoint (http or https)")
        self.headers = KeyValueEditor("header", HEADER_NAME_PATTERN, "Add hea&der", "Header-Name", dialog)
        self.auth = AuthSection(dialog)
        self.sandbox = SandboxSection(dialog)
        self.connect_timeout = _spin("Starting and the initialize handshake; Default is 30 s")
        self.call_timeout = _spin("One tool call; Default is 120 s")
        self.scope = QComboBox(dialog)
        self.scope.addItem("Every project (user)", "user")
        self.scope.addItem("One project folder (local)", "local")
        self.scope.setToolTip("Where the server is offered: everywhere, or only for one project folder")
        self.project = FolderPicker("The project folder this server belongs to", "Project folder", dialog)

    def _make_buttons(self, dialog: QDialog) -> None:
        self.test = QPushButton("&Test connection", dialog)
        self.test.setAutoDefault(False)
        self.cancel = QPushButton("Cancel", dialog)
        self.cancel.setToolTip("Close without saving (Escape)")
        self.cancel.setAutoDefault(False)
        self.save = QPushButton("&Save", dialog)
        self.save.setObjectName("Primary")
        self.save.setDefault(True)
        self.test_result = QLabel(dialog)
        self.test_result.setWordWrap(True)
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status = QLabel(dialog)
        self.status.setWordWrap(True)
        self.details = QPushButton("Details…", dialog)
        self.details.setToolTip("Show the full error")
        self.details.setAutoDefault(False)
        self.details.hide()
        self._details_text = ""
        self.details.clicked.connect(self._show_details)

    def _field(self, key: str, widget: QWidget, beside: list[QWidget] | None = None) -> QWidget:
        holder = QWidget(self.dialog)
        box = QVBoxLayout(holder)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        if beside:
            line = QHBoxLayout()
            line.addWidget(widget, 1)
            for extra in beside:
                line.addWidget(extra)
            box.addLayout(line)
        else:
            box.addWidget(widget)
        error = QLabel(holder)
        error.setObjectName("FieldError")
        error.setWordWrap(True)
        error.hide()
        box.addWidget(error)
        self.error_labels[key] = error
        self.rows[key] = holder
        holder.setFocusProxy(widget)
        return holder

    def _section(self, form: QFormLayout, title: str) -> None:
        label = QLabel(title, self.dialog)
        label.setObjectName("SectionTitle")
        self.rows[f"section:{title}"] = label
        form.addRow(label)

    def _arrange(self, dialog: QDialog, with_gallery: bool) -> None:
        body = QWidget(dialog)
        form = QFormLayout(body)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        form.setContentsMargins(16, 4, 16, 12)
        form.setVerticalSpacing(8)
        self.form = form
        self._section(form, "General")
        rows = [
            ("&Name", "name", self._field("name", self.name)),
            ("T&ransport", "transport", self._field("transport", self.transport)),
            ("Sco&pe", "scope", self._field("scope", self.scope)),
            ("Pro&ject folder", "project", self._field("project", self.project)),
        ]
        self._add_rows(form, rows)
        self._section(form, "Values this preset needs")
        form.addRow(self._field("preset", self.preset_values))
        self._section(form, "Program")
        command_field = self._field("command", self.command, [self.dependency])
        command_field.layout().addWidget(self.command_hint)  # type: ignore[union-attr]
        self._add_rows(
            form,
            [
                ("&Command", "command", command_field),
                ("Arguments", "args", self._field("args", self.args)),
                ("Environment", "env", self._field("env", self.env)),
                ("&Working folder", "cwd", self._field("cwd", self.cwd)),
            ],
        )
        self._section(form, "Sandbox")
        self._add_rows(form, [("Sand&box", "sandbox", self._field("sandbox", self.sandbox))])
        self._section(form, "Endpoint")
        self._add_rows(
            form,
            [
                ("&URL", "url", self._field("url", self.url)),
                ("Au&thentication", "auth", self._field("auth", self.auth)),
                ("Headers", "headers", self._field("headers", self.headers)),
            ],
        )
        self._section(form, "Timeouts")
        self._add_rows(
            form,
            [
                ("Connect time&out", "timeout", self._field("timeout", self.connect_timeout)),
                ("Tool call ti&meout", "call_timeout", self._field("call_timeout", self.call_timeout)),
            ],
        )
        self.transport_label = form.labelForField(self.rows["transport"])
        # never shorter than its rows want: the scroll area scrolls instead of squeezing the fields
        body.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        scroll = QScrollArea(dialog)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        self._assemble(dialog, scroll, with_gallery)

    def _add_rows(self, form: QFormLayout, rows: list[tuple[str, str, QWidget]]) -> None:
        for label_text, key, widget in rows:
            label = QLabel(label_text, self.dialog)
            label.setBuddy(self.transport.focus_target() if key == "transport" else widget)
            # a one-line field taller than a line edit (segments, Browse…, Install) centres its label on it
            tall = widget.sizeHint().height() if key in ("transport", "command", "cwd", "project") else 0
            label.setFixedHeight(max(self.name.sizeHint().height(), tall))
            label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            form.addRow(label, widget)

    def _assemble(self, dialog: QDialog, scroll: QScrollArea, with_gallery: bool) -> None:
        right = QVBoxLayout()
        right.setContentsMargins(0, 0, 0, 0)
        link_row = QHBoxLayout()
        link_row.setContentsMargins(16, 12, 16, 4)
        link_row.addWidget(self.link_notice)
        right.addLayout(link_row)
        right.addWidget(self.preset_info)
        right.addWidget(scroll, 1)
        test_row = QHBoxLayout()
        test_row.setContentsMargins(16, 0, 16, 0)
        test_row.addWidget(self.test)
        test_row.addWidget(self.test_result, 1)
        right.addLayout(test_row)
        bar = QHBoxLayout()
        bar.setContentsMargins(16, 6, 16, 12)
        bar.addWidget(self.status, 1)
        bar.addWidget(self.details)
        bar.addWidget(self.cancel)
        bar.addWidget(self.save)
        right.addLayout(bar)
        root = QHBoxLayout(dialog)
        root.setContentsMargins(0, 0, 0, 0)
        root.setSpacing(0)
        if with_gallery:
            panel = QFrame(dialog)
            panel.setObjectName("GalleryPanel")
            box = QVBoxLayout(panel)
            box.setContentsMargins(12, 12, 12, 12)
            box.addWidget(self.gallery)
            panel.setFixedWidth(290)
            root.addWidget(panel)
        root.addLayout(right, 1)
        dialog.resize(960 if with_gallery else 700, 700)

    # -- state -----------------------------------------------------------------------------

    def show_transport(self, transport: str, local: bool) -> None:
        """Show only the fields of ``transport``; the project folder only for local scope."""
        stdio = transport == "stdio"
        for key in STDIO_FIELDS:
            self.form.setRowVisible(self.rows[key], stdio)
        for key in HTTP_FIELDS:
            self.form.setRowVisible(self.rows[key], not stdio)
        self.form.setRowVisible(self.rows["section:Program"], stdio)
        self.form.setRowVisible(self.rows["section:Sandbox"], stdio)
        self.form.setRowVisible(self.rows["section:Endpoint"], not stdio)
        self.form.setRowVisible(self.rows["project"], local)
        needs_values = bool(self.preset_values.arguments)
        self.form.setRowVisible(self.rows["preset"], needs_values)
        self.form.setRowVisible(self.rows["section:Values this preset needs"], needs_values)

    def show_errors(self, errors: dict[str, str]) -> None:
        """Show each message under its field; other fields' labels are hidden."""
        for key, label in self.error_labels.items():
            text = errors.get(key, "")
            if key == "env" or key == "headers":
                editor = self.env if key == "env" else self.headers
                editor.set_error(text)
                continue
            label.setText(text)
            label.setVisible(bool(text))
        general = errors.get("general", "")
        if general:
            self.set_status(general, muted=False)

    def focus_field(self, key: str) -> None:
        """Put the keyboard focus on the field of ``key`` (the one a refused save names)."""
        row = self.rows.get(key)
        label = self.form.labelForField(row) if row is not None else None
        buddy = label.buddy() if isinstance(label, QLabel) else None
        target = buddy or row
        if target is not None:
            target.setFocus(Qt.FocusReason.OtherFocusReason)

    def set_status(self, text: str, muted: bool, details: str = "") -> None:
        """The line left of the buttons: a hint (muted) or an error, with a Details button."""
        self.status.setObjectName("Muted" if muted else "FieldError")
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)
        self.status.setText(text)
        self._details_text = details
        self.details.setVisible(bool(details))

    def set_test_result(self, rich_text: str, tooltip: str) -> None:
        """Show the outcome of Test."""
        self.test_result.setText(rich_text)
        self.test_result.setToolTip(tooltip)

    def set_preset_info(self, preset: McpPreset | None) -> None:
        """Above the fields: what the chosen preset is, needs and where it comes from (None: the hint)."""
        parts = []
        if preset is not None:
            parts.append(html.escape(preset.description))
            if preset.runtime:
                parts.append(f"Needs {html.escape(preset.runtime)}")
            if preset.homepage:
                parts.append(f'<a href="{html.escape(preset.homepage, quote=True)}">Homepage</a>')
        self.preset_info.setText(" · ".join(parts) or PICK_HINT)
        self.preset_info.setToolTip(preset.homepage or "" if preset is not None else "")

    def _show_details(self) -> None:
        icon = QMessageBox.Icon.Warning
        details_box(self.dialog, "Error details", self.status.text(), self._details_text, icon).exec()
