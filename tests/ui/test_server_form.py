"""The add/edit form driven like a user: typing, inline errors, secrets, argument order, presets."""

from __future__ import annotations

import re
import sys
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit
from pytestqt.qtbot import QtBot

from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.presets import McpPreset, load_presets
from elftia_desktop.core.server_draft import field_error
from elftia_desktop.ui.dialogs.server_form import McpServerForm
from elftia_desktop.ui.dialogs.server_form_fields import widget_error

PRESETS: list[McpPreset] = [
    McpPreset.model_validate(p)
    for p in [
        {
            "id": "github",
            "name": "GitHub",
            "description": "Issues and pull requests",
            "category": "Dev",
            "transport": "stdio",
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": [
                {"name": "GITHUB_PERSONAL_ACCESS_TOKEN", "description": "repo scope", "required": True, "secret": True}
            ],
            "runtime": "node",
            "homepage": "https://github.com/modelcontextprotocol/servers",
        },
        {
            "id": "filesystem",
            "name": "Filesystem",
            "description": "Files in folders you allow",
            "category": "Files",
            "transport": "stdio",
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "{directory}"],
            "env": [],
            "arguments": [
                {
                    "key": "directory",
                    "label": "Folder the server may access",
                    "placeholder": "~/Documents",
                    "isPath": True,
                }
            ],
        },
        {
            "id": "remote",
            "name": "Remote",
            "description": "HTTP",
            "category": "Web",
            "transport": "http",
            "url": "https://example.com/mcp",
            "env": [],
        },
    ]
]


def make_form(qtbot: QtBot, **kwargs: Any) -> McpServerForm:
    form = McpServerForm(**kwargs)
    qtbot.addWidget(form)
    form.show()
    return form


def type_into(qtbot: QtBot, edit: QLineEdit, text: str) -> None:
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Delete)
    qtbot.keyClicks(edit, text)


def error_field(loc: tuple[str | int, ...], message: str) -> tuple[str, str]:
    return widget_error(field_error(loc, message))


def test_error_field_maps_model_locations() -> None:
    assert field_error((), 'Value error, config.url: "x" is not an absolute http(s) URL').path == "config.url"
    assert error_field((), 'Value error, config.url: "x" is not an absolute http(s) URL') == (
        "url",
        '"x" is not an absolute http(s) URL',
    )
    assert error_field(("config", "env"), "Value error, environment variable name '1A' is not valid")[0] == "env"
    assert error_field(("config", "timeout", "call"), "Input should be greater than 0")[0] == "timeout"
    assert error_field((), 'name: a server named "x" exists already') == ("name", 'A server named "x" exists already')
    assert error_field((), "Something odd happened") == ("general", "Something odd happened")


def test_empty_form_blocks_save_without_shouting(qtbot: QtBot) -> None:
    form = make_form(qtbot)
    assert not form.ui.save.isEnabled()
    assert "name" in form.errors
    # Nothing typed yet: no red error under the name, a muted hint next to the buttons instead.
    assert not form.ui.error_labels["name"].isVisible()
    assert "name" in form.ui.status.text().lower()
    assert "Save is disabled" in form.ui.save.toolTip()


def test_typing_shows_inline_errors_and_enables_save(qtbot: QtBot) -> None:
    form = make_form(qtbot)
    type_into(qtbot, form.ui.name, "x")
    form.ui.name.clear()
    assert form.ui.error_labels["name"].isVisible()
    assert "needs a name" in form.ui.error_labels["name"].text()
    type_into(qtbot, form.ui.name, "files")
    assert not form.ui.error_labels["name"].isVisible()
    type_into(qtbot, form.ui.command, "x")
    form.ui.command.clear()
    assert "needs a command" in form.ui.error_labels["command"].text()
    type_into(qtbot, form.ui.command, "python")
    assert form.errors == {}
    assert form.ui.save.isEnabled()
    assert form.draft().as_json() == {
        "name": "files",
        "type": "stdio",
        "config": {"command": "python", "args": [], "env": {}},
        "scope": "user",
        "isTrusted": True,
    }


def test_transport_switch_shows_only_its_fields_and_validates_url(qtbot: QtBot) -> None:
    form = make_form(qtbot)
    assert form.ui.command.isVisible() and not form.ui.url.isVisible()
    qtbot.mouseClick(form.ui.transport.buttons["http"], Qt.MouseButton.LeftButton)
    assert form.ui.url.isVisible() and not form.ui.command.isVisible()
    assert not form.ui.env.isVisible() and form.ui.headers.isVisible()
    type_into(qtbot, form.ui.name, "remote")
    type_into(qtbot, form.ui.url, "example.com/mcp")
    assert "not an absolute http(s) URL" in form.ui.error_labels["url"].text()
    assert not form.ui.save.isEnabled()
    type_into(qtbot, form.ui.url, "https://example.com/mcp")
    assert form.ui.save.isEnabled()
    server = form.server()
    assert server is not None and server.type.value == "http"
    assert form.draft().as_json()["config"] == {"url": "https://example.com/mcp", "headers": {}}


def test_env_name_error_and_secret_marking(qtbot: QtBot) -> None:
    form = make_form(qtbot)
    type_into(qtbot, form.ui.name, "s")
    type_into(qtbot, form.ui.command, "node")
    qtbot.mouseClick(form.ui.env.add_button, Qt.MouseButton.LeftButton)
    row = form.ui.env.row(0)
    qtbot.keyClicks(row.key, "1BAD")
    assert "is not valid" in form.ui.env.error_label.text()
    assert not form.ui.save.isEnabled()
    type_into(qtbot, row.key, "OPENAI_API_KEY")
    assert row.secret.isChecked(), "a name that looks secret is pre-marked"
    type_into(qtbot, row.value, "sk-123")
    assert row.value.echoMode() == QLineEdit.EchoMode.Password
    qtbot.mouseClick(row.reveal, Qt.MouseButton.LeftButton)
    assert row.value.echoMode() == QLineEdit.EchoMode.Normal
    qtbot.mouseClick(row.reveal, Qt.MouseButton.LeftButton)
    assert row.value.echoMode() == QLineEdit.EchoMode.Password
    draft = form.draft()
    assert draft.env == {"OPENAI_API_KEY": "sk-123"}
    assert draft.as_json()["secretKeys"] == ["OPENAI_API_KEY"]
    # Unmark by hand: the value shows, and renaming no longer re-marks it.
    qtbot.mouseClick(row.secret, Qt.MouseButton.LeftButton)
    type_into(qtbot, row.key, "MY_TOKEN")
    assert not row.secret.isChecked()
    assert "secretKeys" not in form.draft().as_json()


def test_marking_a_plain_name_secret(qtbot: QtBot) -> None:
    form = make_form(qtbot)
    qtbot.mouseClick(form.ui.env.add_button, Qt.MouseButton.LeftButton)
    row = form.ui.env.row(0)
    qtbot.keyClicks(row.key, "DATABASE_URL")
    assert not row.secret.isChecked()
    qtbot.mouseClick(row.secret, Qt.MouseButton.LeftButton)
    assert row.secret.isChecked()
    assert form.ui.env.secret_keys() == ["DATABASE_URL"]


def test_duplicate_env_names_are_an_inline_error(qtbot: QtBot) -> None:
    form = make_form(qtbot)
    type_into(qtbot, form.ui.name, "d")
    type_into(qtbot, form.ui.command, "node")
    for _ in range(2):
        qtbot.mouseClick(form.ui.env.add_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(form.ui.env.row(0).key, "A")
    qtbot.keyClicks(form.ui.env.row(1).key, "A")
    assert "listed twice" in form.ui.env.error_label.text()
    assert not form.ui.save.isEnabled()


def test_arguments_reorder_with_buttons_and_keys(qtbot: QtBot) -> None:
    form = make_form(qtbot)
    args = form.ui.args
    for text in ("one", "two", "three"):
        qtbot.mouseClick(args.add_button, Qt.MouseButton.LeftButton)
        qtbot.keyClicks(args.row_edit(args.row_count() - 1), text)
    assert args.items() == ["one", "two", "three"]
    qtbot.mouseClick(args._rows[2].up, Qt.MouseButton.LeftButton)
    assert args.items() == ["one", "three", "two"]
    assert form.focusWidget() is args.row_edit(1), "focus follows the moved argument"
    qtbot.keyClick(args.row_edit(1), Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert args.items() == ["three", "one", "two"]
    qtbot.mouseClick(args._rows[1].remove, Qt.MouseButton.LeftButton)
    assert args.items() == ["three", "two"]
    assert not args._rows[0].up.isEnabled() and not args._rows[-1].down.isEnabled()


def test_clicking_add_again_at_the_same_spot_adds_again(qtbot: QtBot) -> None:
    """An Add button stays under the pointer when its row comes: the second click adds a second row of the
    same list (with the button below the rows, it moved down and the next list's Add took its place)."""
    form = make_form(qtbot)
    form.resize(900, 1400)  # room for every row: what moves here is the layout, not a scroll to the new row
    for editor in (form.ui.args, form.ui.env):
        QApplication.processEvents()  # the layout requests of the clicks before
        spot = editor.add_button.mapTo(form, editor.add_button.rect().center())
        for count in (1, 2):
            QApplication.processEvents()
            target = form.childAt(spot)
            assert target is editor.add_button, f"{type(editor).__name__}: {target!r} under the pointer"
            qtbot.mouseClick(target, Qt.MouseButton.LeftButton)
            assert editor.row_count() == count


def test_split_whole_command_line(qtbot: QtBot) -> None:
    form = make_form(qtbot)
    type_into(qtbot, form.ui.command, "npx -y '@scope/pkg' --dir /tmp")
    assert form.ui.command_hint.isVisible()
    form.ui.command_hint.linkActivated.emit("split")
    assert form.ui.command.text() == "npx"
    assert form.ui.args.items() == ["-y", "@scope/pkg", "--dir", "/tmp"]
    assert not form.ui.command_hint.isVisible()


def test_scope_local_needs_project_folder(qtbot: QtBot) -> None:
    form = make_form(qtbot)
    type_into(qtbot, form.ui.name, "n")
    type_into(qtbot, form.ui.command, "node")
    assert not form.ui.project.isVisible()
    form.ui.scope.setCurrentIndex(form.ui.scope.findData("local"))
    assert form.ui.project.isVisible()
    assert "project folder" in form.ui.error_labels["project"].text()
    assert not form.ui.save.isEnabled()
    type_into(qtbot, form.ui.project.edit, "/home/me/project")
    assert form.ui.save.isEnabled()
    server = form.server()
    assert server is not None and server.project_path == "/home/me/project"


def test_preset_fills_form_and_requires_its_secret(qtbot: QtBot) -> None:
    form = make_form(qtbot, presets=PRESETS)
    form.ui.gallery.choose("github")
    assert form.ui.name.text() == "GitHub"
    assert form.ui.command.text() == "npx"
    assert form.ui.args.items() == ["-y", "@modelcontextprotocol/server-github"]
    row = form.ui.env.row(0)
    assert row.key.text() == "GITHUB_PERSONAL_ACCESS_TOKEN" and row.secret.isChecked()
    assert "a value is required" in form.ui.env.error_label.text()
    assert "Homepage" in form.ui.preset_info.text()
    assert not form.ui.save.isEnabled()
    type_into(qtbot, row.value, "ghp_x")
    assert form.ui.save.isEnabled()


def test_preset_required_argument_and_http_preset(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/ada")
    form = make_form(qtbot, presets=PRESETS)
    form.ui.gallery.choose("filesystem")
    assert form.ui.preset_values.isVisible()
    error = form.ui.error_labels["preset"]
    assert error.isVisible() and error.text() == 'Required: Filesystem needs "Folder the server may access" to run.'
    assert not form.ui.save.isEnabled()
    assert form.ui.args.items()[-1] == "{directory}", "the placeholder shows where the value goes"
    form.ui.preset_values.fields["directory"].set_text("~/data")  # type: ignore[union-attr]
    assert form.ui.save.isEnabled() and not error.isVisible()
    assert form.draft().args == ("-y", "@modelcontextprotocol/server-filesystem", "/home/ada/data")
    form.ui.gallery.search.setText("remote")
    assert form.ui.gallery.list.item(1).isHidden()
    form.ui.gallery.choose("remote")
    assert form.ui.transport.value() == "http"
    assert form.ui.url.isVisible() and not form.ui.preset_values.isVisible()


def test_every_real_preset_saves_no_placeholder(qtbot: QtBot) -> None:
    """Each shipped preset, its required values filled, saves without a single ``{key}`` left."""
    for preset in load_presets():
        form = make_form(qtbot, presets=[preset])
        form.ui.gallery.choose(preset.id)
        for argument in preset.arguments:
            field = form.ui.preset_values.fields[argument.key]
            text = "/tmp/x" if argument.is_path else "value-1"
            field.set_text(text) if hasattr(field, "set_text") else field.setText(text)  # type: ignore[union-attr]
        for row in range(len(preset.env)):
            if not form.ui.env.row(row).value.text():
                form.ui.env.row(row).value.setText("v")
        server = form.server()
        assert server is not None, f"{preset.id}: {form.errors}"
        saved = server.config.model_dump_json()
        assert not re.search(r"\{[A-Za-z_]+\}", saved), f"{preset.id}: {saved}"
        assert not form.errors, f"{preset.id}: {form.errors}"
        if preset.command == "{python}":
            assert server.config.command == sys.executable


def test_edit_mode_keeps_saved_secret_unless_retyped(qtbot: QtBot) -> None:
    record = McpServerRecord.model_validate(
        {
            "name": "gh",
            "type": "stdio",
            "config": {
                "command": "npx",
                "args": ["-y", "pkg"],
                "env": {"GH_TOKEN": "${secret:GH_TOKEN}", "MODE": "x"},
                "timeout": {"call": 30, "list": 5},
            },
        }
    )
    form = make_form(qtbot, record=record)
    assert form.windowTitle() == "Edit gh"
    assert not form.ui.gallery.isVisible()
    row = form.ui.env.row(0)
    assert row.value.text() == "" and row.value.placeholderText().startswith("••••••")
    assert not row.reveal.isEnabled()
    assert form.ui.call_timeout.value() == 30
    assert form.ui.save.isEnabled()
    assert not form.is_dirty()
    change = form.change()
    assert change is not None and change.config is not None
    assert change.config.env == {"GH_TOKEN": "${secret:GH_TOKEN}", "MODE": "x"}
    assert change.config.timeout is not None
    assert change.config.timeout.to_json_dict() == {"list": 5.0, "call": 30.0}
    assert change.to_updates()["config"]["url"] is None
    type_into(qtbot, row.value, "new-token")
    assert form.draft().env["GH_TOKEN"] == "new-token"
    assert form.is_dirty()
    row.value.clear()
    type_into(qtbot, row.key, "GH_TOKEN2")
    assert "a value is required" not in form.ui.env.error_label.text()
    assert form.draft().env.get("GH_TOKEN2") == "", "a renamed secret needs its value again"
    assert "again" in row.value.placeholderText()


def test_without_router_save_emits_params_and_test_is_disabled(qtbot: QtBot) -> None:
    form = make_form(qtbot)
    assert not form.ui.test.isEnabled()
    type_into(qtbot, form.ui.name, "p")
    type_into(qtbot, form.ui.command, "python")
    with qtbot.waitSignal(form.submitted, timeout=5000) as blocker:
        qtbot.keyClick(form.ui.command, Qt.Key.Key_Return)
    assert blocker.args[0].name == "p" and blocker.args[0].is_trusted
    assert form.result() == McpServerForm.DialogCode.Accepted


def test_escape_cancels(qtbot: QtBot) -> None:
    form = make_form(qtbot)
    with qtbot.waitSignal(form.rejected, timeout=5000):
        qtbot.keyClick(form.ui.name, Qt.Key.Key_Escape)
