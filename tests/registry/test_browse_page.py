"""The Browse page, the bundle dialog and the update badge, against the real services and the test registry."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLineEdit
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core import login_env
from elftia_desktop.ui.dialogs.bundle_dialog import BundleDialog
from elftia_desktop.ui.pages.browse_page import BrowsePage
from elftia_desktop.ui.pages.servers_page import McpServersPage
from tests.helpers.live_router import live_router
from tests.helpers.memory_keyring import MemoryKeyring
from tests.registry.conftest import OLD_SERVER_NOTE
from tests.registry.mcpb_builder import build_bundle, sign_bundle
from tests.registry.registry_server import LocalRegistry, serve_registry

WAIT = 30_000


@pytest.fixture
def router(registry: LocalRegistry, monkeypatch: pytest.MonkeyPatch) -> Iterator[McpRouter]:
    """Real services; runtimes looked up on this process's PATH; the registry is the test one."""
    monkeypatch.delenv("SHELL", raising=False)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin")
    login_env.reset_cache()
    with live_router() as (live, _loop):
        yield live


def open_browse(qtbot: QtBot, router: McpRouter, registry: LocalRegistry) -> BrowsePage:
    page = BrowsePage(router)
    qtbot.addWidget(page)
    page.resize(1100, 760)
    page.show()
    qtbot.waitUntil(lambda: any(v.source == registry.url for v in page.views), timeout=WAIT)
    return page


def select(qtbot: QtBot, page: BrowsePage, query: str) -> None:
    page.query.setText(query)
    assert page.results.count() >= 1
    page.results.setCurrentRow(0)
    qtbot.waitUntil(lambda: page.install_button.isVisible(), timeout=WAIT)


def test_search_details_and_install_with_a_secret(
    qtbot: QtBot, router: McpRouter, registry: LocalRegistry, isolated_data_dir: Path, memory_keyring: MemoryKeyring
) -> None:
    page = open_browse(qtbot, router, registry)
    page.query.setText("weather")
    assert [v.name for v in page.views] == ["io.github.example/weather-oci"]
    assert "1.2.0" in page.results.item(0).text() and "docker" in page.results.item(0).text()
    select(qtbot, page, "weather")
    assert "io.github.example/weather-oci · version 1.2.0" in page.meta.text()
    assert page.form.command.text() == (
        "docker run -i --rm --network bridge -e WEATHER_API_KEY -e WEATHER_UNITS docker.io/example/weather-mcp:1.2.0"
    )
    secret = page.form.widgets["WEATHER_API_KEY"]
    units = page.form.widgets["WEATHER_UNITS"]
    assert isinstance(secret, QLineEdit) and secret.echoMode() is QLineEdit.EchoMode.Password
    assert isinstance(units, QComboBox) and units.currentText() == "metric"
    assert [units.itemText(i) for i in range(units.count())] == ["", "metric", "imperial"]

    page.install_button.click()
    qtbot.waitUntil(lambda: page.notice.isVisible(), timeout=WAIT)
    assert page.notice.kind == "error" and "Missing required input: WEATHER_API_KEY" in page.notice.label.text()
    assert (
        not (isolated_data_dir / "mcp-config.json").exists()
        or "weather" not in (isolated_data_dir / "mcp-config.json").read_text()
    )

    secret.setText("k-gui-secret")
    with qtbot.waitSignal(page.installed, timeout=WAIT):
        page.install_button.click()
    assert page.notice.kind == "success" and "not trusted yet" in page.notice.label.text()
    files = [p.read_bytes() for p in isolated_data_dir.rglob("*") if p.is_file()]
    assert not any(b"k-gui-secret" in data for data in files)
    assert "k-gui-secret" in memory_keyring.values.values()


def test_deprecated_entries_only_on_request_and_remote_preview(
    qtbot: QtBot, router: McpRouter, registry: LocalRegistry
) -> None:
    page = open_browse(qtbot, router, registry)
    page.query.setText("replaced by a newer")
    assert page.views == []
    page.show_removed.setChecked(True)
    assert [v.status for v in page.views] == ["deprecated"]
    assert f"[deprecated: {OLD_SERVER_NOTE}]" in page.results.item(0).text()  # the registry's statusMessage
    page.results.setCurrentRow(0)
    assert f"deprecated: {OLD_SERVER_NOTE}" in page.meta.text()
    select(qtbot, page, "tenant")
    # the install form of the newly chosen entry comes when its plan is ready (the previous entry's stays till then)
    qtbot.waitUntil(lambda: page.form.command.text() == "https://<tenant>.mcp.example.com/mcp", timeout=WAIT)
    tenant = page.form.widgets["tenant"]
    assert isinstance(tenant, QComboBox)
    tenant.setCurrentText("eu")
    assert page.form.command.text() == "https://eu.mcp.example.com/mcp"


def test_untrusted_card_and_update_badge(qtbot: QtBot, router: McpRouter, registry: LocalRegistry) -> None:
    page = open_browse(qtbot, router, registry)
    select(qtbot, page, "server-time")
    with qtbot.waitSignal(page.installed, timeout=WAIT) as installed:
        page.install_button.click()
    server_id = installed.args[0]
    servers = McpServersPage(router)
    qtbot.addWidget(servers)
    servers.show()
    qtbot.waitUntil(lambda: server_id in servers.cards, timeout=WAIT)
    card = servers.cards[server_id]
    qtbot.waitUntil(lambda: card.badge.state == "untrusted", timeout=WAIT)  # "Needs trust", not an error
    assert "Needs trust" in card.badge.text() and card.review.isVisible()
    assert "mcp-server-time==2026.10.19" in card.subtitle.toolTip()
    assert not card.update_chip.isVisible()

    newer = json.loads(json.dumps(registry.latest()["io.github.modelcontextprotocol/server-time"].server))
    newer["version"] = newer["packages"][0]["version"] = "2026.11.2"
    registry.publish(newer)
    servers.reload()
    qtbot.waitUntil(lambda: card.update_chip.isVisible(), timeout=WAIT)
    assert card.update_chip.text() == "update available: 2026.11.2"
    assert card.update_button.text() == "Update to 2026.11.2"
    card.update_button.click()
    qtbot.waitUntil(lambda: "mcp-server-time==2026.11.2" in card.subtitle.toolTip(), timeout=WAIT)
    qtbot.waitUntil(lambda: not card.update_chip.isVisible(), timeout=WAIT)
    qtbot.waitUntil(lambda: card.badge.state == "untrusted", timeout=WAIT)  # the update asks trust again


def test_bundle_dialog_shows_manifest_and_installs(
    qtbot: QtBot, router: McpRouter, registry: LocalRegistry, tmp_path: Path, isolated_data_dir: Path
) -> None:
    path = build_bundle(tmp_path / "notes.mcpb")
    sign_bundle(path)
    page = open_browse(qtbot, router, registry)
    page.open_bundle(str(path))
    qtbot.waitUntil(lambda: any(isinstance(w, BundleDialog) for w in page.children()), timeout=WAIT)
    dialog = next(w for w in page.children() if isinstance(w, BundleDialog))
    notes = dialog.form.notes.text()
    assert "By Ada Example · Signed by Ada Example Signing, but the certificate is not trusted" in notes
    assert "Tools: whoami" in notes
    dialog.install_button.click()
    qtbot.waitUntil(lambda: dialog.notice.isVisible(), timeout=WAIT)
    assert "Missing required input: api_key" in dialog.notice.label.text()
    assert not (isolated_data_dir / "bundles").exists()
    key = dialog.form.widgets["api_key"]
    assert isinstance(key, QLineEdit) and key.echoMode() is QLineEdit.EchoMode.Password
    key.setText("sk-dialog")
    with qtbot.waitSignal(page.installed, timeout=WAIT):
        dialog.install_button.click()
    assert (isolated_data_dir / "bundles" / "bundled-notes-1.4.0" / "server" / "main.py").is_file()


def test_a_missing_runtime_is_offered_and_installed(
    qtbot: QtBot, registry: LocalRegistry, monkeypatch: pytest.MonkeyPatch, isolated_data_dir: Path
) -> None:
    monkeypatch.delenv("SHELL", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no uvx: the app installs uv into its tools folder
    login_env.reset_cache()
    with live_router() as (router, _loop):
        page = open_browse(qtbot, router, registry)
        select(qtbot, page, "server-time")
        assert "Needs uvx, which is not installed: the app can install it." in page.form.notes.text()
        assert page.runtime_button.isVisible() and page.runtime_button.text() == "Install uvx first"
        page.runtime_button.click()
        qtbot.waitUntil(
            lambda: not page.runtime_button.isVisible() and page.install_button.isVisible(), timeout=180_000
        )
        assert not page.form.notes.isVisible()
        assert page.form.command.text().startswith("uvx mcp-server-time==2026.10.19")
        assert list((isolated_data_dir).rglob("uvx"))


def test_featured_entries_without_network(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("ELFTIA_REGISTRY_URL", f"http://127.0.0.1:{port}")  # nothing listens there
    with live_router() as (router, _loop):
        page = BrowsePage(router)
        qtbot.addWidget(page)
        page.show()
        qtbot.waitUntil(lambda: page.notice.isVisible(), timeout=WAIT)
        assert page.notice.kind == "warning" and "could not be refreshed" in page.notice.label.text()
        assert f"127.0.0.1:{port}/v0.1/servers cannot be reached" in page.notice.details
        assert len(page.views) == 13 and {v.source for v in page.views} == {"featured"}
        page.query.setText("filesystem")
        page.results.setCurrentRow(0)
        qtbot.waitUntil(lambda: page.install_button.isVisible(), timeout=WAIT)
        assert page.form.command.text() == "npx -y @modelcontextprotocol/server-filesystem@2026.8.31 <directory>"


def test_registry_text_is_shown_as_plain_text(qtbot: QtBot, router: McpRouter, registry: LocalRegistry) -> None:
    registry.publish(
        {
            "name": "io.github.example/html-desc",
            "description": "<b>Bold</b> <a href='https://evil.test'>click</a>",
            "version": "1.0.0",
            "remotes": [{"type": "sse", "url": "https://{region}.evil.test/sse"}],
        }
    )
    page = open_browse(qtbot, router, registry)
    qtbot.waitUntil(lambda: any(v.name == "io.github.example/html-desc" for v in page.views), timeout=WAIT)
    select(qtbot, page, "html-desc")
    # rich text only for `code` spans: the registry's markup is escaped, shown as typed, never rendered
    assert page.description.textFormat() == Qt.TextFormat.RichText
    assert page.description.text() == "&lt;b&gt;Bold&lt;/b&gt; &lt;a href='https://evil.test'&gt;click&lt;/a&gt;"
    assert page.form.command.textFormat() == Qt.TextFormat.PlainText
    assert page.form.command.text() == "https://<region>.evil.test/sse"


def test_a_bundle_given_to_the_app_opens_in_the_bundle_dialog(
    qtbot: QtBot, router: McpRouter, registry: LocalRegistry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtCore import QSettings

    from elftia_desktop.ui.main_window import MainWindow, bundle_argument

    path = build_bundle(tmp_path / "opened.mcpb")
    monkeypatch.chdir(tmp_path)
    assert bundle_argument("opened.mcpb") == str(path)
    assert bundle_argument(path.as_uri()) == str(path)
    assert bundle_argument("elftia:add?x") == "elftia:add?x"
    window = MainWindow(router, QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    window.handle_arguments([bundle_argument(path.as_uri())])
    page = window.browse_page
    qtbot.waitUntil(lambda: any(isinstance(w, BundleDialog) for w in page.children()), timeout=WAIT)
    assert window.stack.currentWidget() is page


def test_registry_urls_from_the_settings_page(
    qtbot: QtBot, router: McpRouter, registry: LocalRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    from elftia_desktop.ui.pages.settings_page import SettingsPage

    monkeypatch.delenv("ELFTIA_REGISTRY_URL")
    org_server = {"name": "com.acme/internal-tools", "description": "Acme's internal tools", "version": "2.0.0"}
    org_server["remotes"] = [{"type": "sse", "url": "https://mcp.acme.test/sse"}]
    with serve_registry([org_server]) as org:
        settings = SettingsPage(router)
        qtbot.addWidget(settings)
        settings.show()
        qtbot.waitUntil(lambda: settings.info is not None, timeout=WAIT)
        assert settings.values.registry_url.text() == "https://registry.modelcontextprotocol.io"
        qtbot.keyClicks(settings.values.registry_url, "x")  # typing marks the page edited
        settings.values.registry_url.setText(registry.url)
        settings.values.extra_registries.setText(org.url)
        assert settings.save_button.isEnabled()
        settings.save_button.click()
        qtbot.waitUntil(lambda: settings.notice.isVisible() and "Saved" in settings.notice.label.text(), timeout=WAIT)
        page = BrowsePage(router)
        qtbot.addWidget(page)
        page.show()
        qtbot.waitUntil(lambda: {registry.url, org.url} <= {v.source for v in page.views}, timeout=WAIT)
        page.query.setText("acme")
        assert [(v.name, v.source) for v in page.views] == [("com.acme/internal-tools", org.url)]
