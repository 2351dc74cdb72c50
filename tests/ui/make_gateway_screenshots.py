"""Screenshots of "Use in other apps" (the gateway dialog) and its install diff, light and dark.

Run from the repo root: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.ui.make_gateway_screenshots``.
Writes ``docs/screenshots/gateway*.png`` against the real services, with a temporary home folder
in which Cursor's config already holds the agent's entry.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ELFTIA_DATA_DIR"] = tempfile.mkdtemp(prefix="elftia-shots-")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
os.environ["HOME"] = tempfile.mkdtemp(prefix="elftia-home-")
os.environ.pop("XDG_CONFIG_HOME", None)

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from elftia_desktop.bridge.results import GatewayChange
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.first_run import seed_default_agent
from elftia_desktop.core.models import Agent
from elftia_desktop.gateway.install import apply_plan, plan_install
from elftia_desktop.ui.dialogs.gateway_dialog import GatewayDialog
from elftia_desktop.ui.widgets.gateway_panel import DiffDialog
from tests.helpers.live_router import live_router
from tests.ui.make_screenshots import each_theme, save, settle

OUT = Path("docs/screenshots")


def _seed() -> None:
    agents = AgentStore()
    seed_default_agent(agents)
    agents.add(Agent(name="Coder"))
    cursor = Path(os.environ["HOME"]) / ".cursor" / "mcp.json"
    cursor.parent.mkdir(parents=True)
    cursor.write_text(json.dumps({"mcpServers": {"memory": {"command": "npx", "args": ["-y", "memory"]}}}), "utf-8")
    apply_plan(plan_install("cursor", "Coder"))


def shoot(app: QApplication, router: object, suffix: str) -> None:
    """The dialog on Cursor (installed), then the diff of installing into Claude Code."""
    dialog = GatewayDialog(router, "Coder")  # type: ignore[arg-type]
    dialog.show()
    panel = dialog.panel
    settle(app, lambda: panel.apps.count() == 6)
    panel.apps.setCurrentIndex(panel.apps.findData("cursor"))
    save(app, dialog, f"gateway{suffix}")
    plans: list[GatewayChange] = []
    router.gateway.preview({"app": "claude-code", "agent": "Coder"}).then(router.signals, plans.append)  # type: ignore[attr-defined]
    settle(app, lambda: bool(plans))
    plan = plans[0]
    summary = f'Write the entry "elftia-coder" in Claude Code\'s config {plan.path}. The file is backed up first.'
    diff = DiffDialog("Install in Claude Code", summary, plan.diff, "Install")
    diff.show()
    save(app, diff, f"gateway-diff{suffix}")
    diff.close()
    dialog.close()


def main() -> None:
    """Write the screenshots."""
    OUT.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv)
    light: QPalette = app.palette()
    _seed()
    with live_router() as (router, _loop):
        for suffix in each_theme(app, light):
            shoot(app, router, suffix)


if __name__ == "__main__":
    main()
