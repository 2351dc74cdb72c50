"""Screenshots of approvals: the question before a tool runs (over Try), and Discover's switches, light and dark.

Run from the repo root: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.ui.make_approval_screenshots``.
Writes ``docs/screenshots/approval-dialog*.png``, ``try-confirm*.png`` and ``discover-approve*.png``;
everything talks to the real ``approvals`` test server.
"""

from __future__ import annotations

import os
import sys
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ELFTIA_DATA_DIR"] = tempfile.mkdtemp(prefix="elftia-shots-")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import QApplication

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.ui.dialogs.approval_dialog import ApprovalDialog, ask_approval
from elftia_desktop.ui.dialogs.discover_dialog import DiscoverDialog
from elftia_desktop.ui.dialogs.try_history import TryHistory
from elftia_desktop.ui.dialogs.try_tool_dialog import TryToolDialog
from tests.helpers.live_router import add_servers, live_router, server_input
from tests.ui.make_screenshots import OUT, each_theme, settle
from tests.ui.make_try_screenshots import save


def shoot(app: QApplication, router: McpRouter, record: McpServerRecord, sfx: str) -> None:
    """Discover with its switches, then Try on a destructive tool and its question."""
    discover = DiscoverDialog(router, record)
    discover.resize(900, 640)
    discover.show()
    settle(app, lambda: discover.discovered is not None)
    save(app, discover, f"discover-approve{sfx}")
    assert discover.discovered is not None
    tool = next(t.definition for t in discover.discovered.tools if t.name == "delete_note")
    discover.close()
    dialog = TryToolDialog(router, record.id, tool, record.name, history=TryHistory())
    dialog.show()
    asked: list[ApprovalDialog] = []
    router.signals.approvalRequested.connect(lambda q: asked.append(ask_approval(router, q, dialog)))
    dialog.form.set_value({"key": "meeting-2024-03-01"})
    dialog.call()
    settle(app, lambda: bool(asked) and asked[0].isVisible())
    question = asked[0]
    save(app, question, f"approval-dialog{sfx}")
    composite = dialog.grab()
    painter = QPainter(composite)
    inner = question.grab()
    left, top = (composite.width() - inner.width()) // 2, (composite.height() - inner.height()) // 3
    painter.drawPixmap(left, top, inner)
    painter.setPen(question.palette().color(QPalette.ColorRole.Mid))
    painter.drawRect(left - 1, top - 1, inner.width() + 1, inner.height() + 1)  # the dialog's frame
    painter.end()
    composite.save(str(OUT / f"try-confirm{sfx}.png"))
    print("wrote", OUT / f"try-confirm{sfx}.png")
    question.deny_button.click()
    settle(app, lambda: not dialog.running)
    router.signals.approvalRequested.disconnect()
    dialog.close()


def main() -> None:
    """Write every screenshot of this part."""
    OUT.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv)
    light = app.palette()
    ConfigStore().mutate(lambda records: None)
    (record,) = add_servers(server_input("notes", "approvals"))
    with live_router() as (router, _loop):
        for sfx in each_theme(app, light):
            shoot(app, router, record, sfx)


if __name__ == "__main__":
    main()
