"""Issue 34: the registry's ``statusMessage``, entries deleted upstream, and ``postInstallInstructions``.

A deprecated entry shows why (Browse and ``registry search|show``); an entry that comes back
``deleted`` on an incremental sync leaves the disk cache; a server.json's post-install
instructions are shown after an install (window and CLI) as text, and nothing in them is run.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.cli import main
from elftia_desktop.core import login_env
from elftia_desktop.registry.cache import RegistryCache
from elftia_desktop.registry.client import RegistryClient
from tests.helpers.live_router import live_router
from tests.registry.conftest import OLD_SERVER_NOTE
from tests.registry.registry_server import LocalRegistry
from tests.registry.test_browse_page import WAIT, open_browse, select

OLD = "io.github.example/old-server"
TIME = "io.github.modelcontextprotocol/server-time"


def after_entry(marker: Path) -> dict[str, object]:
    """A remote entry whose post-install instructions contain a command that must never run."""
    return {
        "name": "com.example/after-notes",
        "description": "A hosted notes server with steps to follow",
        "version": "1.0.0",
        "remotes": [{"type": "streamable-http", "url": "https://after.example.test/mcp"}],
        "postInstallInstructions": f"Open the dashboard and create a token.\ntouch {marker}",
    }


@pytest.fixture
def router(registry: LocalRegistry, monkeypatch: pytest.MonkeyPatch) -> Iterator[McpRouter]:
    """Real services on the test registry."""
    monkeypatch.delenv("SHELL", raising=False)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin")
    login_env.reset_cache()
    with live_router() as (live, _loop):
        yield live


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_status_message_is_shown_by_the_cli(registry: LocalRegistry, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "registry", "show", OLD)
    assert code == 0 and f"status:      deprecated: {OLD_SERVER_NOTE}" in out
    code, out, _ = run(capsys, "registry", "show", OLD, "--json")
    assert json.loads(out)["statusMessage"] == OLD_SERVER_NOTE
    code, out, _ = run(capsys, "registry", "search", "old", "--registry", registry.url)
    assert code == 0 and f"deprecated: {OLD_SERVER_NOTE}" in out


def test_an_entry_deleted_upstream_leaves_the_cache(registry: LocalRegistry, tmp_path: Path) -> None:
    cache = RegistryCache(registry.url, tmp_path)
    asyncio.run(cache.sync(RegistryClient(registry.url)))
    assert TIME in cache.entries
    registry.set_status(TIME, "deleted", "Removed at the publisher's request", at="2999-01-01T00:00:00Z")
    registry.requests.clear()
    result = asyncio.run(cache.sync(RegistryClient(registry.url)))
    assert not result.full and result.removed == 1
    assert all("include_deleted=true" in r for r in registry.requests)
    assert TIME not in cache.entries
    assert TIME not in RegistryCache(registry.url, tmp_path).load().entries
    assert OLD in cache.entries  # deprecated (not deleted) entries stay, hidden unless asked for


def test_post_install_instructions_are_shown_never_run_cli(
    registry: LocalRegistry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran"
    registry.publish(after_entry(marker))
    code, out, err = run(capsys, "registry", "install", "com.example/after-notes")
    assert code == 0, err
    assert "post-install instructions (not run by Elftia" in out
    assert "  Open the dashboard and create a token." in out and f"  touch {marker}" in out
    code, out, _ = run(capsys, "registry", "install", "com.example/after-notes", "--name", "again", "--json")
    assert json.loads(out)["postInstallInstructions"].startswith("Open the dashboard")
    assert not marker.exists()


def test_post_install_instructions_are_shown_never_run_window(
    qtbot: QtBot, router: McpRouter, registry: LocalRegistry, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    registry.publish(after_entry(marker))
    page = open_browse(qtbot, router, registry)
    select(qtbot, page, "after-notes")
    with qtbot.waitSignal(page.installed, timeout=WAIT):
        page.install_button.click()
    assert "post-install instructions (not run): Open the dashboard" in page.notice.label.text()
    assert page.notice.details.endswith(f"touch {marker}")
    assert not marker.exists()
