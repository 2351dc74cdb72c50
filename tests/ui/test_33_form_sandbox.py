"""Issue 33: the server form's Sandbox section: offered for a server typed by hand, filled from a preset or
a record, validated like the rest, hidden for remote servers, and plain about where no sandbox works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot

from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.core.presets import load_presets
from elftia_desktop.platform.sandbox import sandbox_support
from elftia_desktop.ui.dialogs.server_form import McpServerForm

needs_sandbox = pytest.mark.skipif(sandbox_support() is not None, reason=f"no sandbox here: {sandbox_support()}")


def make_form(qtbot: QtBot, **kwargs: Any) -> McpServerForm:
    form = McpServerForm(presets=[], **kwargs)
    qtbot.addWidget(form)
    form.show()
    return form


def fill_stdio(form: McpServerForm) -> None:
    form.ui.name.setText("tool")
    form.ui.command.setText("npx")


@needs_sandbox
def test_offered_off_for_a_server_typed_by_hand(qtbot: QtBot, tmp_path: Path) -> None:
    form = make_form(qtbot)
    fill_stdio(form)
    section = form.ui.sandbox
    assert not section.enabled.isChecked() and section.note.isVisible() and not section.details.isVisible()
    assert "all your rights" in section.note.text()
    assert "sandbox" not in form.draft().as_json()
    section.enabled.setChecked(True)
    assert section.details.isVisible() and not section.hosts.isVisible() and not section.proxy_note.isVisible()
    section.write.add_row(str(tmp_path))
    section.net.setCurrentIndex(section.net.findData("allow"))
    assert section.hosts.isVisible()
    assert section.proxy_note.isVisible() and "Node 20's built-in fetch ignores" in section.proxy_note.text()
    section.hosts.add_row("api.github.com:443")
    assert form.draft().as_json()["sandbox"] == {
        "enabled": True,
        "allowRead": [],
        "allowWrite": [str(tmp_path)],
        "net": "allow",
        "allowNet": ["api.github.com:443"],
    }
    assert form.ui.save.isEnabled()
    form.grab().save(str(tmp_path / "form-sandbox.png"))


@needs_sandbox
def test_a_bad_path_is_an_error_under_the_section(qtbot: QtBot) -> None:
    form = make_form(qtbot)
    fill_stdio(form)
    form.ui.sandbox.enabled.setChecked(True)
    form.ui.sandbox.read.add_row("relative/dir")
    assert "must be absolute" in form.errors["sandbox"]
    assert not form.ui.save.isEnabled()
    assert form.ui.error_labels["sandbox"].isVisible()


@needs_sandbox
def test_a_preset_fills_its_profile_with_the_values(qtbot: QtBot, tmp_path: Path) -> None:
    form = make_form(qtbot)
    preset = next(p for p in load_presets() if p.id == "filesystem")
    form.apply_preset(preset)
    assert form.ui.sandbox.enabled.isChecked()
    field = form.ui.preset_values.findChild(QLineEdit)
    assert field is not None
    field.setText(str(tmp_path))
    server = form.server()
    assert server is not None and server.sandbox is not None
    assert server.sandbox.allow_write == [str(tmp_path)] and server.sandbox.allow_net == ["registry.npmjs.org:443"]


def test_a_record_shows_its_sandbox_and_switching_it_off_is_kept(qtbot: QtBot) -> None:
    record = McpServerRecord(
        name="x", type="stdio", config={"command": "npx"}, sandbox={"net": "any", "allowRead": ["/srv"]}
    )
    form = make_form(qtbot, record=record)
    section = form.ui.sandbox
    assert section.enabled.isChecked() and section.read.items() == ["/srv"]
    section.enabled.setChecked(False)
    change = form.change()
    assert change is not None and change.sandbox is not None
    assert change.to_updates()["sandbox"]["enabled"] is False  # saved as off, not dropped


def test_remote_servers_have_no_sandbox_section(qtbot: QtBot) -> None:
    form = make_form(qtbot)
    form.ui.transport.set_value("http")
    assert not form.ui.rows["sandbox"].isVisible() and not form.ui.rows["section:Sandbox"].isVisible()
    form.ui.url.setText("https://example.com/mcp")
    assert "sandbox" not in form.draft().as_json()


def test_where_no_sandbox_works_it_says_so(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        "elftia_desktop.ui.dialogs.server_form_sandbox.sandbox_unavailable", lambda: "there is no sandbox on Windows"
    )
    form = make_form(qtbot)
    fill_stdio(form)
    section = form.ui.sandbox
    assert not section.enabled.isEnabled()
    assert (
        section.note.text() == "No sandbox here: there is no sandbox on Windows. The server runs with all your rights."
    )
