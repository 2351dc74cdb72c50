"""Issue 10: the Settings page against the real router: saved values persist and the services use
them (a real tool call times out at the new default, servers connect at start), the theme, the
folders, the secrets backend, a backup without secrets; and no sidebar page is a placeholder."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backends.fail import Keyring as NoKeyring
from pydantic import ValidationError
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.channels import SettingsSaveInput
from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.settings_store import AppSettings, SettingsStore
from elftia_desktop.ui.main_window import PAGES, MainWindow
from elftia_desktop.ui.pages.settings_page import SettingsPage
from elftia_desktop.ui.theme import is_dark, set_theme_mode
from tests.helpers.live_router import add_servers, live_router, server_input, settle

pytestmark = pytest.mark.usefixtures("memory_servers")

WAIT = 30_000


@pytest.fixture
def app_theme(qapp: QApplication) -> Iterator[QApplication]:
    """Whatever a test does to the theme, the next one starts with the system palette."""
    yield qapp
    set_theme_mode(qapp, "system")


def open_page(qtbot: QtBot, router: McpRouter) -> SettingsPage:
    page = SettingsPage(router)
    qtbot.addWidget(page)
    page.resize(1000, 800)
    page.show()
    qtbot.waitUntil(lambda: page.info is not None, timeout=WAIT)
    return page


def data_dir() -> Path:
    return Path(os.environ["ELFTIA_DATA_DIR"])


def test_saved_settings_persist_and_the_services_use_them(
    qtbot: QtBot, router: McpRouter, app_theme: QApplication
) -> None:
    (record,) = add_servers(server_input("sleepy"))
    SettingsStore().save(AppSettings(gateway_http_port=8765))  # as gateway install fixes it
    page = open_page(qtbot, router)
    values = page.values
    assert values.values().model_dump(by_alias=True, exclude_unset=True) == {
        "connectTimeout": 30,
        "callTimeout": 120,
        "logLines": 500,
        "startup": "first-use",
        "theme": "system",
        "registryUrl": "https://registry.modelcontextprotocol.io",
        "extraRegistries": [],
    }
    assert not page.save_button.isEnabled()
    values.call_timeout.setValue(1)
    values.log_lines.setValue(80)
    values.startup.setCurrentIndex(values.startup.findData("at-start"))
    values.theme.setCurrentIndex(values.theme.findData("dark"))
    assert page.save_button.isEnabled() and page.dirty()
    page.save_button.click()
    qtbot.waitUntil(lambda: page.notice.isVisible() and "Saved" in page.notice.label.text(), timeout=WAIT)
    assert not page.save_button.isEnabled()
    saved = json.loads((data_dir() / "settings.json").read_text(encoding="utf-8"))["settings"]
    assert saved == {
        "connectTimeout": 30,
        "callTimeout": 1,
        "logLines": 80,
        "startup": "at-start",
        "theme": "dark",
        "registryUrl": "https://registry.modelcontextprotocol.io",
        "extraRegistries": [],
        "gatewayHttpPort": 8765,  # not on the page: kept as saved (gateway install fixed it)
    }
    assert is_dark(app_theme.palette())

    errors: list[BridgeError] = []
    router.tools.call(record.id, "slow", {"seconds": 20}).then(router.signals, on_error=errors.append)
    qtbot.waitUntil(lambda: bool(errors), timeout=WAIT)  # 20 s would pass under the old 120 s default
    assert errors[0].kind == "ServerTimeout" and "timed out in the tool call" in errors[0].message


def test_connect_at_start_connects_trusted_servers_without_a_request(qtbot: QtBot) -> None:
    trusted, stranger = add_servers(server_input("eager"), server_input("stranger", trusted=False))
    (data_dir() / "settings.json").write_text(
        json.dumps({"version": 1, "settings": {"startup": "at-start"}}), encoding="utf-8"
    )
    with live_router() as (router, _loop):
        states: dict[str, Any] = {}

        def poll() -> bool:
            router.servers.states().then(router.signals, states.update)
            return states.get(trusted.id, ("",))[0] == "connected"

        qtbot.waitUntil(poll, timeout=WAIT)
        assert states[stranger.id][0] != "connected"


def test_first_use_leaves_servers_alone_at_start(qtbot: QtBot, router: McpRouter) -> None:
    (record,) = add_servers(server_input("lazy"))
    states: dict[str, Any] = {}
    router.servers.states().then(router.signals, states.update)
    qtbot.waitUntil(lambda: bool(states), timeout=WAIT)
    settle(qtbot, router)
    router.servers.states().then(router.signals, states.update)
    qtbot.waitUntil(lambda: record.id in states, timeout=WAIT)
    assert states[record.id][0] == "disconnected"


def test_a_bad_value_is_refused_with_its_field(qtbot: QtBot, router: McpRouter) -> None:
    with pytest.raises(ValidationError) as refused:
        SettingsSaveInput.model_validate({"callTimeout": 0, "theme": "purple"})
    assert {error["loc"] for error in refused.value.errors()} == {("callTimeout",), ("theme",)}
    page = open_page(qtbot, router)
    page.values.registry_url.setText("registry.example.org")
    page.values.edited.emit()
    page.save_button.click()
    assert page.notice.isVisible() and "registryUrl" in page.notice.label.text()
    assert page.save_button.isEnabled()  # nothing was sent: the value can be fixed and saved
    assert not (data_dir() / "settings.json").exists()


def test_folders_keyring_backend_revert_and_backup(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    token = server_input("with-token")
    token.config.env = {"SERVICE_API_KEY": "sk-live-777"}
    add_servers(token)
    page = open_page(qtbot, router)
    assert page.places.paths["dataDir"].text() == str(data_dir())
    assert page.places.paths["configFile"].text() == str(data_dir() / "mcp-config.json")
    assert "OS keyring" in page.secrets.text() and "MemoryKeyring" in page.secrets.text()
    page.values.connect_timeout.setValue(12)
    assert page.revert_button.isEnabled()
    page.revert_button.click()
    assert page.values.connect_timeout.value() == 30 and not page.dirty()

    target = tmp_path / "backup" / "elftia.json"
    page.export_backup(str(target))
    qtbot.waitUntil(lambda: "Backup of 1 server(s)" in page.notice.label.text(), timeout=WAIT)
    assert "1 secret value(s) left out" in page.notice.label.text()
    text = target.read_text(encoding="utf-8")
    assert "sk-live-777" not in text
    backup = json.loads(text)
    assert backup["mcpServers"][0]["config"]["env"] == {"SERVICE_API_KEY": "${secret:SERVICE_API_KEY}"}
    assert backup["settings"]["callTimeout"] == 120


def test_without_a_keyring_the_page_names_the_file_and_how_to_get_one(qtbot: QtBot) -> None:
    keyring.set_keyring(NoKeyring())  # the conftest puts its memory keyring back afterwards
    with live_router() as (router, _loop):
        page = open_page(qtbot, router)
        text = page.secrets.text()
        assert "A file only you can read" in text and "secrets.json" in text
        assert "gnome-keyring" in text or "Keychain" in text or "Credential Manager" in text


def test_no_sidebar_entry_leads_to_a_placeholder(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    window = MainWindow(router, QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    kinds = {key: type(window.pages[key]).__name__ for key, _label, _tip in PAGES}
    assert kinds == {
        "servers": "McpServersPage",
        "agents": "AgentsPage",
        "dependencies": "DependenciesPage",
        "import": "ImportExportPage",
        "browse": "BrowsePage",
        "activity": "ActivityPage",
        "settings": "SettingsPage",
    }
    assert [window.sidebar.item(i).text() for i in range(window.sidebar.count())] == [label for _k, label, _t in PAGES]


def test_a_saved_notice_goes_when_a_value_is_changed_again(qtbot: QtBot, router: McpRouter) -> None:
    """The "Saved." notice stayed up while the page showed a value that was not saved."""
    page = open_page(qtbot, router)
    page.values.log_lines.setValue(80)
    page.save_button.click()
    qtbot.waitUntil(lambda: page.notice.isVisible() and "Saved" in page.notice.label.text(), timeout=WAIT)
    page.values.log_lines.setValue(90)
    assert page.dirty() and not page.notice.isVisible()
