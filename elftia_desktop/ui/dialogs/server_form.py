"""``McpServerForm``: add or edit one MCP server.

The form's fields make a typed ``ServerDraft`` (``core/server_draft.py``), checked on every change;
each ``FieldError`` of the check is shown under the field its path names, and Save stays disabled
until the draft checks out as an ``McpServerInput``.

Saving: with a router, the form calls ``router.add`` (or ``router.update`` in edit mode)
itself and closes only when the service accepted the server, so a refusal such as a taken
name is shown under its field while the user's input is still there: ``mcp:add`` gets the
``McpServerInput``, ``mcp:update`` the ``McpServerUpdate`` of every field the form shows. ``saved``
carries the ``McpActionResult``. From an install link (``link``) the form opens filled in, says where the
server comes from, and saves it untrusted (``installSource: "protocol"``): it cannot be tested
here, and it runs only after the user confirms what it runs. Without a router it only emits
``submitted`` (the ``McpServerInput``) and closes; ``draft()`` and ``change()`` give what would be sent.
"""

from __future__ import annotations

import html
import shlex

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDialog, QWidget

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import McpActionResult, McpServerInput, McpServerRecord, McpTestResult
from elftia_desktop.core.presets import McpPreset
from elftia_desktop.core.sandbox import default_sandbox, sandbox_unavailable
from elftia_desktop.core.server_draft import SandboxDraft, ServerDraft, field_error, preset_sandbox_draft
from elftia_desktop.core.server_update import McpServerUpdate
from elftia_desktop.ui.dialogs.server_form_fields import env_row, widget_error
from elftia_desktop.ui.dialogs.server_form_layout import FormLayout
from elftia_desktop.ui.dialogs.server_form_params import form_draft
from elftia_desktop.ui.theme import STATE_COLORS
from elftia_desktop.ui.widgets.key_value_editor import RowSpec


class McpServerForm(QDialog):
    """The add/edit dialog of one server.

    Signals:
        submitted(object): the ``McpServerInput`` when the user saves.
        saved(object): the ``McpActionResult`` once the router saved the server.
    """

    submitted = Signal(object)
    saved = Signal(object)

    def __init__(
        self,
        router: McpRouter | None = None,
        record: McpServerRecord | None = None,
        presets: list[McpPreset] | None = None,
        parent: QWidget | None = None,
        link: McpServerInput | None = None,
    ) -> None:
        super().__init__(parent)
        self._router = router
        self.record = record
        self.link = link
        self.result_record: McpServerRecord | None = None
        self._touched: set[str] = set()
        self._show_all = record is not None
        self._server_errors: dict[str, str] = {}
        self._filling = False
        self._saving = False
        self._testing = False
        self.errors: dict[str, str] = {}
        self._initial: ServerDraft | None = None
        self.setWindowTitle(
            f"Edit {record.name}" if record else "Add MCP server from a link" if link else "Add MCP server"
        )
        self.ui = FormLayout(self, router, with_gallery=record is None and link is None)
        self._connect()
        if record is not None:
            self._fill_from_record(record)
        elif link is not None:
            self._fill_from_link(link)
        elif presets is not None:
            self.ui.gallery.set_presets(presets)
        elif router is not None:
            router.app.presets().then(self, self.ui.gallery.set_presets)
        self._initial = self.draft()
        self._revalidate()
        self.ui.name.setFocus()

    # -- wiring ----------------------------------------------------------------------------

    def _connect(self) -> None:
        ui = self.ui
        signals = {
            "name": ui.name.textChanged,
            "transport": ui.transport.changed,
            "command": ui.command.textChanged,
            "args": ui.args.changed,
            "env": ui.env.changed,
            "cwd": ui.cwd.changed,
            "url": ui.url.textChanged,
            "headers": ui.headers.changed,
            "auth": ui.auth.changed,
            "timeout": ui.call_timeout.valueChanged,
            "scope": ui.scope.currentIndexChanged,
            "project": ui.project.changed,
            "preset": ui.preset_values.changed,
            "sandbox": ui.sandbox.changed,
        }
        for key, signal in signals.items():
            signal.connect(lambda *_a, k=key: self._changed(k))
        ui.connect_timeout.valueChanged.connect(lambda *_a: self._changed("timeout"))
        ui.transport.changed.connect(lambda _v: self._update_visibility())
        ui.scope.currentIndexChanged.connect(lambda _i: self._update_visibility())
        ui.command.textChanged.connect(ui.dependency.schedule)
        ui.command_hint.linkActivated.connect(lambda _link: self.split_command())
        ui.gallery.presetChosen.connect(self.apply_preset)
        ui.save.clicked.connect(self._save)
        ui.cancel.clicked.connect(self.reject)
        ui.test.clicked.connect(self._test)
        self._update_visibility()

    def _changed(self, key: str) -> None:
        if not self._filling:
            self._touched.update(("scope", "project") if key == "scope" else (key,))
        self._server_errors.clear()
        self._revalidate()

    def _update_visibility(self) -> None:
        self.ui.show_transport(self.ui.transport.value(), self.ui.scope.currentData() == "local")

    # -- parameters ------------------------------------------------------------------------

    def draft(self) -> ServerDraft:
        """The server as typed in the fields (checked by ``draft().check()``)."""
        return form_draft(self.ui, self.record, self.link)

    def server(self) -> McpServerInput | None:
        """The server for ``router.add`` (and Test), or None while the fields do not check out."""
        return self.draft().check().server

    def change(self) -> McpServerUpdate | None:
        """The change for ``router.update``: every form field, the other transport's cleared (None: not valid)."""
        draft = self.draft()
        server = draft.check().server
        return draft.change(server) if server is not None else None

    def is_dirty(self) -> bool:
        """True when the fields differ from what the form opened with."""
        return self.draft() != self._initial

    # -- validation ------------------------------------------------------------------------

    def validate(self) -> dict[str, str]:
        """Field key -> first error, from the model and the editors' own checks."""
        errors: dict[str, str] = {}
        for error in self.draft().check().errors:
            errors.setdefault(*widget_error(error))
        transport = self.ui.transport.value()
        editor = self.ui.env if transport == "stdio" else self.ui.headers
        problems = editor.problems()
        if problems:
            errors.setdefault("env" if transport == "stdio" else "headers", problems[0])
        preset_problem = self.ui.preset_values.problem()
        if preset_problem:
            errors.setdefault("preset", preset_problem)
        missing = self.ui.args.missing_required() if transport == "stdio" else []
        if missing:
            errors.setdefault("args", f"Fill in the required argument: {missing[0]}")
        return errors

    def _revalidate(self) -> None:
        self.errors = self.validate()
        shown = {k: v for k, v in self.errors.items() if self._show_all or k in self._touched or k == "general"}
        shown.update(self._server_errors)
        self.ui.show_errors(shown)
        valid = not self.errors and not self._saving
        self.ui.save.setEnabled(valid)
        first = next(iter(self.errors.values()), "")
        self.ui.save.setToolTip("Save the server (Enter)" if valid else f"Save is disabled: {first}")
        hidden = [v for k, v in self.errors.items() if v not in shown.values()]
        self.ui.set_status(hidden[0] if hidden and not self._saving else "", muted=True)
        self._update_test_button()
        command = self.ui.command.text().strip()
        self.ui.command_hint.setVisible(" " in command and self.ui.transport.value() == "stdio")

    # -- presets and records ---------------------------------------------------------------

    def apply_preset(self, preset: McpPreset | None) -> None:
        """Fill the form from a preset (None: a custom server, the fields stay).

        The values the preset needs (its ``arguments``) become fields of their own; its ``{key}``
        placeholders stay visible in the arguments, URL and headers and are filled when saving.
        """
        self.ui.set_preset_info(preset)
        self.ui.preset_values.set_preset(preset)
        self._update_visibility()
        if preset is None:
            return
        self._filling = True
        ui = self.ui
        ui.name.setText(preset.name)
        ui.transport.set_value(preset.transport.value)
        ui.command.setText(preset.command or "")
        ui.url.setText(preset.url or "")
        ui.args.set_items(list(preset.args))
        ui.env.set_rows([env_row(var) for var in preset.env])
        ui.headers.set_rows([RowSpec(k, v, False) for k, v in preset.headers.items()])
        if preset.sandbox is not None and ui.sandbox.unavailable is None:
            ui.sandbox.set_value(*preset_sandbox_draft(preset.sandbox))
        else:
            ui.sandbox.set_value(None)
        self._filling = False
        self._show_all = True
        self._revalidate()

    def _fill_from_record(self, record: McpServerRecord) -> None:
        self._filling = True
        ui, config = self.ui, record.config
        ui.name.setText(record.name)
        ui.transport.set_value(record.type.value)
        ui.command.setText(config.command or "")
        ui.args.set_items(list(config.args))
        ui.env.set_mapping(dict(config.env))
        ui.cwd.set_text(config.cwd or "")
        ui.url.setText(config.url or "")
        ui.headers.set_mapping(ui.auth.set_config(dict(config.headers), config.oauth))
        if config.timeout is not None:
            ui.connect_timeout.setValue(config.timeout.connect or 0)
            ui.call_timeout.setValue(config.timeout.call or 0)
        ui.scope.setCurrentIndex(max(0, ui.scope.findData(record.scope.value)))
        ui.project.set_text(record.project_path or "")
        ui.sandbox.set_value(SandboxDraft.of(record.sandbox) if record.sandbox is not None else None)
        self._filling = False

    def _fill_from_link(self, link: McpServerInput) -> None:
        if link.sandbox is None and link.type.value == "stdio" and sandbox_unavailable() is None:
            link = link.model_copy(update={"sandbox": default_sandbox()})  # what saving it would give it
        self._fill_from_record(link.to_record())
        self._show_all = True
        self.ui.link_notice.show_message(
            "<b>From an install link.</b> Check what it runs before you save: the server is added "
            "untrusted and starts only after you confirm its command.",
            "warning",
        )

    def split_command(self) -> None:
        """A whole command line typed as the command: the first word stays, the rest become arguments."""
        try:
            words = shlex.split(self.ui.command.text())
        except ValueError:
            words = self.ui.command.text().split()
        if words:
            self.ui.args.set_items(words[1:] + self.ui.args.items())
            self.ui.command.setText(words[0])

    # -- save ------------------------------------------------------------------------------

    def _save(self) -> None:
        draft = self.draft()
        server = draft.check().server
        if self.validate() or self._saving or server is None:
            return
        self.submitted.emit(server)
        if self._router is None:
            self.accept()
            return
        self._set_saving(True)
        if self.record is not None:
            change = draft.change(server)
            self._router.servers.update(self.record.id, change, connect=False).then(
                self, self._saved, self._save_failed
            )
        else:  # saved at once; the servers page connects it afterwards and shows that on its card
            self._router.servers.add(server, connect=False).then(self, self._saved, self._save_failed)

    def _set_saving(self, saving: bool) -> None:
        self._saving = saving
        self.ui.set_status("Saving…" if saving else "", muted=True)
        self._revalidate()

    def _saved(self, result: McpActionResult) -> None:
        self._set_saving(False)
        if result.success:
            self.result_record = result.server
            self.saved.emit(result)
            self.accept()
        else:
            self._show_server_error(result.reason or result.error or "The server was not saved", "")

    def _save_failed(self, error: BridgeError) -> None:
        self._set_saving(False)
        self._show_server_error(error.why, error.details)

    def _show_server_error(self, reason: str, details: str) -> None:
        """Show why the server was not saved (``reason`` does not name the server) at its field."""
        field, text = widget_error(field_error((), reason))
        self._server_errors = {field: text}
        self._revalidate()
        if field == "general":
            self.ui.set_status(text, muted=False, details=details)
        else:  # the keys go where the fix is (the save had moved the focus away while it ran)
            self.ui.focus_field(field)

    # -- test ------------------------------------------------------------------------------

    def _test_mode(self) -> tuple[str, str]:
        """``(mode, tooltip)``: mode is ``config`` or ``""`` (cannot test)."""
        if self._router is None:
            return "", "Testing needs the running app's services"
        if self.link is not None:
            return "", "A server from a link runs only after you save it and confirm what it runs"
        return "config", "Connect with these settings and list the tools, without saving (Alt+T)"

    def _update_test_button(self) -> None:
        mode, tip = self._test_mode()
        self.ui.test.setEnabled(bool(mode) and not self.errors and not self._testing)
        self.ui.test.setToolTip(tip)

    def _test(self) -> None:
        mode, _tip = self._test_mode()
        server = self.server()
        if not mode or self.errors or self._router is None or server is None:
            return
        self._testing = True
        self._update_test_button()
        self.ui.set_test_result(self._colored("Testing…", ""), "")
        server_id = self.record.id if self.record is not None else None
        self._router.servers.test_config(server, server_id).then(self, self._tested, self._test_failed)

    def _tested(self, result: McpTestResult) -> None:
        self._testing = False
        self._update_test_button()
        if result.success:
            names = ", ".join(result.tools[:6]) + (" …" if len(result.tools) > 6 else "")
            count = len(result.tools)
            text = f"✓ Connected in {result.duration_ms:.0f} ms · {count} tool{'s' if count != 1 else ''}"
            self.ui.set_test_result(self._colored(text, STATE_COLORS["connected"]), names)
        else:
            error = result.error or "the server did not answer"
            self.ui.set_test_result(self._colored(f"✗ {error}", STATE_COLORS["error"]), error)

    def _test_failed(self, error: BridgeError) -> None:
        self._testing = False
        self._update_test_button()
        self.ui.set_test_result(self._colored(f"✗ {error.message}", STATE_COLORS["error"]), error.details)

    @staticmethod
    def _colored(text: str, color: str) -> str:
        style = f' style="color:{color}"' if color else ""
        return f"<span{style}>{html.escape(text)}</span>"

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter saves when valid (not from the multi-row editors' Add buttons); Escape cancels."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not self.ui.save.isEnabled():
            return
        super().keyPressEvent(event)
