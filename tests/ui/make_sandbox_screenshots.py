"""Screenshots of a server's Activity listing what its sandbox blocked, light and dark.

Run from the repo root: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.ui.make_sandbox_screenshots``.
Writes ``docs/screenshots/activity-blocked*.png``: the card's Activity dialog of a sandboxed npm server
after three denials reached its log (a host the proxy refused, a hidden file, a file it may not write).
"""

from __future__ import annotations

import os
import sys
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ELFTIA_DATA_DIR"] = tempfile.mkdtemp(prefix="elftia-shots-")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

from PySide6.QtWidgets import QApplication

from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpServerInput
from elftia_desktop.core.sandbox import BLOCKED_PREFIX
from elftia_desktop.ui.dialogs.discover_activity import ActivityDialog
from elftia_desktop.ui.widgets.sandbox_denials import DenialsBox
from tests.helpers.live_router import add_servers, live_router
from tests.ui.make_screenshots import OUT, each_theme, settle

DENIALS = [
    "network registry.npmjs.org:443 (not allowed)",
    "file /home/ann/.gitconfig (outside the sandbox)",
    "file /home/ann/Documents/report.md (not allowed)",
]


def main() -> None:
    """Write the light and dark screenshot."""
    OUT.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv)
    light = app.palette()
    ConfigStore().mutate(lambda records: None)
    server = McpServerInput(
        name="files",
        config={"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "~/Projects"]},
        sandbox={"net": "allow", "allowNet": ["api.github.com:443"], "allowWrite": ["~/Projects"]},
        is_active=False,
    )
    (record,) = add_servers(server)
    with live_router() as (router, _loop):
        for line in DENIALS:
            router.signals.logLine.emit(record.id, BLOCKED_PREFIX + line)
        settle(app, lambda: len(router.activity.blocked(record.id)) == len(DENIALS))
        for sfx in each_theme(app, light):
            dialog = ActivityDialog(router.activity, record.id, record.name, None, DenialsBox(router, record))
            dialog.show()
            settle(app)
            dialog.grab().save(str(OUT / f"activity-blocked{sfx}.png"))
            print("wrote", OUT / f"activity-blocked{sfx}.png")
            dialog.close()


if __name__ == "__main__":
    main()
