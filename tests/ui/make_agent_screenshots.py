"""Screenshots of the Agents page, the association dialog and the tool picker, light and dark.

Run from the repo root: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.ui.make_agent_screenshots``.
Writes ``docs/screenshots/agents*.png``, ``agent-dialog*.png`` and ``tool-picker*.png`` against the
real services and test servers (two ``basic`` servers, a failing one, one turned off, the built-ins).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ELFTIA_DATA_DIR"] = tempfile.mkdtemp(prefix="elftia-shots-")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

from PySide6.QtCore import QSettings
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.first_run import seed_default_agent
from elftia_desktop.core.models import Agent, McpMode
from elftia_desktop.ui.dialogs.mcp_manage_dialog import McpManageDialog
from elftia_desktop.ui.main_window import MainWindow
from tests.helpers.live_router import add_servers, live_router, server_input
from tests.ui.make_screenshots import each_theme, save, settle

OUT = Path("docs/screenshots")


def _seed() -> None:
    github, docs, broken, _off = add_servers(
        server_input("github"),
        server_input("docs", "paginated"),
        server_input("broken", "exit3"),
        server_input("archive", isActive=False),
    )
    agents = AgentStore()
    seed_default_agent(agents)
    agents.add(
        Agent(
            name="Coder",
            mcp_mode=McpMode.MANUAL,
            selected_servers=[github.id, broken.id, "mcp_1700000000000_gone"],
            selected_tools={github.id: ["echo", "add", "fail", "env", "pid"]},
        )
    )
    agents.add(Agent(name="Researcher", mcp_mode=McpMode.MANUAL, selected_servers=[docs.id]))
    agents.add(Agent(name="Offline writer", mcp_mode=McpMode.DISABLED))


def _previewed(dialog: McpManageDialog) -> bool:
    """The preview shows the ticked tools (not an older request's)."""
    payloads = dialog.picker.payloads
    return bool(payloads) and payloads[-1].tool_count == dialog.picker.model.checked_count()


def shoot(app: QApplication, window: MainWindow, suffix: str) -> None:
    """The page, the dialog in manual mode, and the picker filtered with the Anthropic preview."""
    page = window.agents_page
    window.show_page("agents")
    settle(app, lambda: len(page.summaries) == 4 and len(page.agents) == 4)
    save(app, window, f"agents{suffix}")
    page.table.selectRow(1)
    dialog = page.manage_selected()
    assert dialog is not None
    dialog.start_button.click()  # opening starts no server: list every server's tools for the picture
    settle(app, lambda: _previewed(dialog) and bool(dialog.counts))
    save(app, dialog, f"agent-dialog{suffix}")
    dialog.mode_buttons[McpMode.AUTO].setChecked(True)
    settle(app, lambda: dialog.picker.model.total() > 30 and _previewed(dialog))
    dialog.picker.filter.setText("number")
    dialog.picker.provider.setCurrentIndex(2)
    settle(app)
    save(app, dialog, f"tool-picker{suffix}")
    dialog.reject()


def main() -> None:
    """Write the screenshots."""
    OUT.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv)
    light: QPalette = app.palette()
    _seed()
    with live_router() as (router, _loop):
        for suffix in each_theme(app, light):
            window = MainWindow(router, QSettings(str(Path(tempfile.mkdtemp()) / "s.ini"), QSettings.Format.IniFormat))
            window.resize(1180, 720)
            window.show()
            shoot(app, window, suffix)
            window.close()


if __name__ == "__main__":
    main()
