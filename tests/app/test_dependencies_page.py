"""Issue 10: the Dependencies page against the real router: a REAL install of uv from PyPI with live
progress, the re-check after it, Uninstall, and a real install cancelled half-way (network needed)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.ui.pages.dependencies_page import DependenciesPage
from tests.helpers.live_router import add_servers, live_router, server_input
from tests.helpers.modal import when_modal

WAIT = 30_000
INSTALL_WAIT = 600_000


def open_page(qtbot: QtBot, router: McpRouter) -> DependenciesPage:
    page = DependenciesPage(router)
    qtbot.addWidget(page)
    page.resize(1000, 760)
    page.show()
    qtbot.waitUntil(lambda: page.loaded and not page.checking, timeout=WAIT)
    # cards added to a shown page are shown by a queued event: wait for it before looking at them
    qtbot.waitUntil(lambda: all(card.isVisible() for card in page.cards.values()), timeout=WAIT)
    return page


def settled(qtbot: QtBot, page: DependenciesPage) -> None:
    """No check is running any more (none is left behind when the test ends)."""
    qtbot.waitUntil(lambda: not page.checking, timeout=WAIT)


def tools_dir() -> Path:
    return Path(os.environ["ELFTIA_DATA_DIR"]) / "tools"


def processes_mentioning(text: str) -> list[str]:
    """Command lines of running processes that contain ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmdline:
                found.append(cmdline)
    return found


def test_every_runtime_is_listed_with_why_and_who_needs_it(qtbot: QtBot, router: McpRouter) -> None:
    uvx_server = server_input("fetch")
    uvx_server.config.command, uvx_server.config.args = "uvx", ["mcp-server-fetch"]
    add_servers(uvx_server)
    page = open_page(qtbot, router)
    assert set(page.cards) == {"node", "uv", "python", "bun", "docker", "deno", "pipx", "bubblewrap"}
    uv = page.cards["uv"]
    assert "uvx <package>" in uv.reason.text() and "fetch" in uv.details.text()
    python = page.cards["python"]
    assert python.row.status == "ok" and python.row.path and python.row.version
    if shutil.which("uvx") is None:
        assert uv.row.status == "missing" and uv.install_button.isVisibleTo(page), (uv.row, uv.installing)
        assert "uv, uvx" in page.summary.text() or "missing for your servers: uv" in page.summary.text()
    docker = page.cards["docker"]
    docker.how_button.setChecked(True)
    if docker.row.status != "ok":
        assert "docker" in docker.instructions.text().lower() and docker.instructions.isVisibleTo(page)
    settled(qtbot, page)


@pytest.mark.network
@pytest.mark.timeout(900)
def test_real_uv_install_shows_progress_rechecks_and_uninstalls(qtbot: QtBot, router: McpRouter) -> None:
    if shutil.which("uvx") is not None:
        pytest.skip("uv is on this system's PATH, so the page offers no install")
    page = open_page(qtbot, router)
    card = page.cards["uv"]
    lines: list[str] = []
    router.signals.logLine.connect(lambda source, line: source == "deps:uv" and lines.append(line))
    card.install_button.click()
    assert card.progress_panel.isVisibleTo(page) and card.progress.maximum() == 0  # a busy bar while it runs
    assert not card.install_button.isVisibleTo(page) and card.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: card.log.blockCount() > 3, timeout=INSTALL_WAIT)
    assert card.installing  # progress arrived while the install was still running
    qtbot.waitUntil(lambda: not card.installing, timeout=INSTALL_WAIT)
    assert not card.progress.isVisibleTo(page) and not card.cancel_button.isVisibleTo(page), (
        "no full bar, no dead Cancel"
    )
    log = card.log.toPlainText()
    assert "Successfully installed uv" in log and log.splitlines() == lines
    assert "is installed and ready" in page.notice.label.text(), page.notice.details
    qtbot.waitUntil(lambda: card.row.status == "ok", timeout=WAIT)  # the re-check after the install
    assert card.row.managed and str(tools_dir()) in (card.row.path or "")
    assert "installed by the app" in card.details.text()
    assert card.uninstall_button.isVisibleTo(page) and not card.install_button.isVisibleTo(page)

    def confirm(box: object) -> None:
        assert isinstance(box, QMessageBox) and "Remove the uv" in box.text()
        box.button(QMessageBox.StandardButton.Yes).click()

    seen = when_modal(confirm)
    card.uninstall_button.click()
    qtbot.waitUntil(lambda: card.row.status == "missing", timeout=WAIT)
    assert seen and "was removed" in page.notice.label.text()
    assert not (tools_dir() / "uv").exists() and not (tools_dir() / "bin" / "uvx").exists()
    settled(qtbot, page)


@pytest.mark.network
@pytest.mark.timeout(900)
def test_cancel_stops_a_real_install_and_leaves_nothing(qtbot: QtBot, router: McpRouter) -> None:
    if shutil.which("pipx") is not None:
        pytest.skip("pipx is on this system's PATH, so the page offers no install")
    page = open_page(qtbot, router)
    card = page.cards["pipx"]
    card.install_button.click()
    qtbot.waitUntil(lambda: "installing pipx from PyPI" in card.log.toPlainText(), timeout=INSTALL_WAIT)
    assert card.installing and (tools_dir() / "pipx").exists()
    card.cancel_button.click()
    qtbot.waitUntil(lambda: not card.installing, timeout=WAIT)
    assert "cancelled" in card.last_line.text() and "cancelled" in page.notice.label.text()
    assert page.notice.kind == "warning"
    assert not (tools_dir() / "pipx").exists()
    qtbot.waitUntil(lambda: not processes_mentioning(str(tools_dir() / "pipx")), timeout=WAIT)
    qtbot.waitUntil(lambda: card.install_button.isVisibleTo(page), timeout=WAIT)
    assert card.row.status == "missing"
    settled(qtbot, page)


@pytest.mark.network
@pytest.mark.timeout(900)
def test_quitting_during_an_install_stops_it_and_cleans_up(qtbot: QtBot) -> None:
    if shutil.which("pipx") is not None:
        pytest.skip("pipx is on this system's PATH")
    lines: list[str] = []
    results: list[Any] = []
    with live_router() as (router, _loop):
        install = router.deps.install("pipx").progress(router.signals, lambda report: lines.append(report.message))
        install.then(router.signals, results.append)
        qtbot.waitUntil(lambda: any("installing pipx from PyPI" in line for line in lines), timeout=INSTALL_WAIT)
        assert (tools_dir() / "pipx").exists()
    # leaving the block runs the app's quit path: AppServices.close(), then the loop stops
    assert not (tools_dir() / "pipx").exists()
    assert not processes_mentioning(str(tools_dir() / "pipx"))
