"""Issue 10: the Import and export page against the real router, in a fake home folder.

Other apps' files are written by the tests into a temporary HOME (Claude Desktop, a broken
Cursor file); the import goes through the real catalog and keyring; the export is read back.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.results import DetectedConfig, ExportPlan, ExportView
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.integrations.detector import ConfigLocation, read_config
from elftia_desktop.integrations.importer import load_entries
from elftia_desktop.ui.pages.import_export_page import ImportExportPage
from tests.helpers.live_router import add_servers, live_router, server_input
from tests.helpers.memory_keyring import MemoryKeyring
from tests.integrations.conftest import claude_bin  # noqa: F401  (the real claude CLI from npm)

WAIT = 30_000
CLAUDE_DESKTOP = {
    "mcpServers": {
        "github": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_from_claude_123"},
        },
        "fetch": {"command": "uvx", "args": ["mcp-server-fetch"]},
    },
    "globalShortcut": "Ctrl+Space",
}
BROKEN_CURSOR = '{\n  "mcpServers": {\n    "a": { "command": "npx" }\n    "b": {}\n  }\n}\n'


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home folder (and working folder) the detector searches instead of the real one."""
    folder = tmp_path / "home"
    (folder / "project").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "CLAUDE_CONFIG_DIR", "APPDATA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(folder / "project")
    return folder


@pytest.fixture
def router(home: Path) -> Iterator[McpRouter]:
    """A router over the real services (after HOME points at the fake home)."""
    with live_router() as (router, _loop):
        yield router


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def open_page(qtbot: QtBot, router: McpRouter) -> ImportExportPage:
    page = ImportExportPage(router)
    qtbot.addWidget(page)
    page.resize(1000, 700)
    page.show()
    qtbot.waitUntil(lambda: page.import_panel.loaded, timeout=WAIT)
    return page


def records(qtbot: QtBot, router: McpRouter) -> list[McpServerRecord]:
    box: list[list[McpServerRecord]] = []
    router.servers.records().then(router.signals, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=WAIT)
    return box[0]


def test_detected_claude_desktop_config_imports_untrusted_while_a_broken_file_is_shown(
    qtbot: QtBot, router: McpRouter, home: Path, memory_keyring: MemoryKeyring
) -> None:
    claude = write(home / ".config" / "Claude" / "claude_desktop_config.json", json.dumps(CLAUDE_DESKTOP))
    cursor = write(home / ".cursor" / "mcp.json", BROKEN_CURSOR)
    page = open_page(qtbot, router)
    panel = page.import_panel
    found = {panel.sources.topLevelItem(i).text(0): panel.sources.topLevelItem(i) for i in range(2)}  # type: ignore[union-attr]
    assert set(found) == {"Claude Desktop", "Cursor"}
    assert found["Claude Desktop"].text(1) == "2 servers" and found["Claude Desktop"].text(2) == str(claude)
    assert found["Cursor"].text(1) == "cannot be read (line 4, column 5)"
    unread = next(c for c in panel.configs if c.app == "cursor")
    assert isinstance(unread, DetectedConfig) and unread.error is not None and unread.path == str(cursor)
    assert (unread.error.line, unread.error.column, unread.count) == (4, 5, 0)
    qtbot.waitUntil(lambda: len(panel.rows) == 2, timeout=WAIT)
    assert page.notice.isVisible() and str(cursor) in page.notice.label.text()
    assert "line 4, column 5" in page.notice.label.text()

    github = next(panel.preview.topLevelItem(i) for i in range(2) if panel.preview.topLevelItem(i).text(0) == "github")  # type: ignore[union-attr]
    assert github.text(2) == "npx -y @modelcontextprotocol/server-github"
    assert github.text(3) == "GITHUB_PERSONAL_ACCESS_TOKEN"
    assert "ghp_from_claude_123" not in github.toolTip(2) and "secret, goes to the keyring" in github.toolTip(2)
    assert panel.import_button.text() == "Import 2 servers"

    with qtbot.waitSignal(panel.imported, timeout=WAIT) as imported:
        panel.import_button.click()
    assert imported.args == [2]
    assert "Imported 2 of 2 servers" in page.notice.label.text() and "untrusted" in page.notice.label.text()
    assert "line 4, column 5" in page.notice.label.text()  # the broken file is still named
    by_name = {r.name: r for r in records(qtbot, router)}
    assert {"github", "fetch"} <= set(by_name)
    new = by_name["github"]
    assert new.is_trusted is False and new.config.command == "npx"
    assert new.config.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "${secret:GITHUB_PERSONAL_ACCESS_TOKEN}"}
    stored = {k: v for k, v in memory_keyring.values.items() if k[1].startswith(new.id)}
    assert list(stored.values()) == ["ghp_from_claude_123"]
    assert "ghp_from_claude_123" not in (Path(os.environ["ELFTIA_DATA_DIR"]) / "mcp-config.json").read_text()


def test_a_taken_name_is_renamed_skipped_or_replaced_per_row(qtbot: QtBot, router: McpRouter, home: Path) -> None:
    add_servers(server_input("github"), server_input("fetch"))
    write(home / ".config" / "Claude" / "claude_desktop_config.json", json.dumps(CLAUDE_DESKTOP))
    page = open_page(qtbot, router)
    panel = page.import_panel
    qtbot.waitUntil(lambda: len(panel.policy_boxes) == 2, timeout=WAIT)
    keys = {row.name: row.key for row in panel.rows}
    rename, skip = panel.policy_boxes[keys["github"]], panel.policy_boxes[keys["fetch"]]
    assert skip.currentData() == "skip"
    rename.setCurrentIndex(rename.findData("rename"))
    with qtbot.waitSignal(panel.imported, timeout=WAIT):
        panel.import_button.click()
    names = sorted(r.name for r in records(qtbot, router))
    assert names == ["fetch", "github", "github (2)"]
    assert "renamed: github → github (2)" in page.notice.details and "skipped: fetch" in page.notice.details


def _export_page(qtbot: QtBot, router: McpRouter) -> ImportExportPage:
    page = open_page(qtbot, router)
    page.tabs.setCurrentWidget(page.export_panel)
    qtbot.waitUntil(lambda: page.export_panel.servers.count() == 2, timeout=WAIT)
    page.export_panel.servers.set_checked(None)
    qtbot.waitUntil(lambda: page.export_panel.exported is not None, timeout=WAIT)
    return page


def _servers_with_a_secret() -> list[McpServerRecord]:
    token = server_input("token-server")
    token.config.env = {"SERVICE_API_KEY": "sk-live-secret-9"}
    return add_servers(server_input("basic"), token)


def test_export_to_cursor_format_and_read_it_back(qtbot: QtBot, router: McpRouter, tmp_path: Path) -> None:
    basic, _token = _servers_with_a_secret()
    page = _export_page(qtbot, router)
    assert page.export_panel.fmt == "cursor"
    assert '"${env:SERVICE_API_KEY}"' in page.export_panel.text.toPlainText()
    exported = page.export_panel.exported
    assert isinstance(exported, ExportView) and exported.format == "cursor" and exported.skipped == ()
    assert [(p.server, p.placeholder) for p in exported.placeholders] == [("token-server", "${env:SERVICE_API_KEY}")]
    assert "placeholders the app fills in: ${env:SERVICE_API_KEY}" in page.export_panel.warnings.text()
    target = tmp_path / "out" / "cursor-mcp.json"
    page.export_panel.save_to(str(target))
    qtbot.waitUntil(lambda: "Wrote 2 server(s)" in page.notice.label.text(), timeout=WAIT)
    text = target.read_text(encoding="utf-8")
    assert "sk-live-secret-9" not in text
    servers = json.loads(text)["mcpServers"]
    assert servers["basic"] == {"command": basic.config.command, "args": basic.config.args}
    assert servers["token-server"]["env"] == {"SERVICE_API_KEY": "${env:SERVICE_API_KEY}"}

    back = read_config(ConfigLocation("cursor", target))
    assert back is not None and back.error is None
    entries = {e.name: e for e in load_entries(back)}
    assert entries["basic"].server is not None and entries["basic"].runs() == " ".join(
        [basic.config.command or "", *basic.config.args]
    )
    page.tabs.setCurrentWidget(page.import_panel)
    page.import_panel.show_sources([DetectedConfig("cursor", "Cursor", str(target), count=2)])
    qtbot.waitUntil(lambda: {r.name for r in page.import_panel.rows} == {"basic", "token-server"}, timeout=WAIT)
    assert all(r.conflict for r in page.import_panel.rows)  # the same names exist here


def test_write_into_cursor_config_shows_the_diff_and_backs_the_file_up(
    qtbot: QtBot, router: McpRouter, home: Path
) -> None:
    _servers_with_a_secret()
    original = json.dumps({"mcpServers": {"keep-me": {"command": "npx", "args": ["-y", "x"]}}}, indent=2) + "\n"
    cursor = write(home / ".cursor" / "mcp.json", original)
    page = _export_page(qtbot, router)
    panel = page.export_panel
    panel.write_button.click()
    qtbot.waitUntil(lambda: panel.dialog is not None and panel.dialog.isVisible(), timeout=WAIT)
    assert panel.dialog is not None
    diff = panel.dialog.diff.toPlainText()
    plan = panel.dialog.plan
    assert isinstance(plan, ExportPlan) and plan.exists and plan.path == str(cursor) and plan.replaced == ()
    assert [p.placeholder for p in plan.placeholders] == ["${env:SERVICE_API_KEY}"]
    assert f"--- {cursor} (now)" in diff and '+    "token-server": {' in diff and "sk-live-secret-9" not in diff
    assert cursor.read_text(encoding="utf-8") == original  # nothing written before the user agrees
    panel.dialog.write_button.click()
    qtbot.waitUntil(lambda: "Wrote into Cursor's config" in page.notice.label.text(), timeout=WAIT)
    written = json.loads(cursor.read_text(encoding="utf-8"))["mcpServers"]
    assert set(written) == {"keep-me", "basic", "token-server"}
    (backup,) = cursor.parent.glob("mcp.json.elftia-backup-*")
    assert backup.read_text(encoding="utf-8") == original and str(backup) in page.notice.label.text()


def test_a_file_changed_after_the_diff_is_not_overwritten(qtbot: QtBot, router: McpRouter, home: Path) -> None:
    _servers_with_a_secret()
    cursor = write(home / ".cursor" / "mcp.json", '{"mcpServers": {}}\n')
    page = _export_page(qtbot, router)
    panel = page.export_panel
    panel.write_button.click()
    qtbot.waitUntil(lambda: panel.dialog is not None and panel.dialog.isVisible(), timeout=WAIT)
    cursor.write_text('{"mcpServers": {"added-meanwhile": {"command": "x"}}}\n', encoding="utf-8")
    assert panel.dialog is not None
    panel.dialog.write_button.click()
    qtbot.waitUntil(lambda: "changed since the diff was shown" in page.notice.label.text(), timeout=WAIT)
    assert "added-meanwhile" in cursor.read_text(encoding="utf-8")
    assert not list(cursor.parent.glob("mcp.json.elftia-backup-*"))


def test_without_the_claude_cli_the_page_says_how_to_get_it(qtbot: QtBot, router: McpRouter) -> None:
    page = open_page(qtbot, router)
    page.tabs.setCurrentWidget(page.claude_panel)
    qtbot.waitUntil(lambda: page.claude_panel.status is not None, timeout=WAIT)
    text = page.claude_panel.state.text()
    assert "Not installed" in text and "npm install -g @anthropic-ai/claude-code" in text
    assert not page.claude_panel.push_button.isEnabled()


def test_push_to_and_pull_from_the_real_claude_cli(
    qtbot: QtBot,
    router: McpRouter,
    home: Path,
    claude_bin: Path,  # noqa: F811 - the session fixture imported above
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``claude`` from npm (@anthropic-ai/claude-code) in a temporary prefix, found on the PATH."""
    from elftia_desktop.core import login_env

    monkeypatch.delenv("SHELL", raising=False)
    monkeypatch.setenv("PATH", f"{claude_bin.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("DISABLE_AUTOUPDATER", "1")
    login_env.reset_cache()
    try:
        (basic,) = add_servers(server_input("pushed-basic"))
        page = open_page(qtbot, router)
        claude = page.claude_panel
        page.tabs.setCurrentWidget(claude)
        qtbot.waitUntil(lambda: claude.status is not None and claude.servers.count() == 1, timeout=60_000)
        assert claude.status is not None and claude.status.installed, claude.state.text()
        assert str(claude_bin) in claude.state.text()
        claude.servers.set_checked(None)
        claude.push_button.click()
        qtbot.waitUntil(
            lambda: "Pushed to Claude Code (user scope): pushed-basic" in page.notice.label.text(), timeout=90_000
        )
        saved = json.loads((home / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]["pushed-basic"]
        assert saved["command"] == basic.config.command and saved["args"] == basic.config.args
        qtbot.waitUntil(lambda: claude.theirs.topLevelItemCount() == 1, timeout=60_000)

        claude.pull_button.click()
        qtbot.waitUntil(lambda: [r.name for r in page.import_panel.rows] == ["pushed-basic"], timeout=WAIT)
        assert page.tabs.currentWidget() is page.import_panel
        assert page.import_panel.rows[0].conflict == "pushed-basic"
    finally:
        login_env.reset_cache()
