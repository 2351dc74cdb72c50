"""Screenshots of OAuth sign-in (issue 16): the servers page and the form's Authentication section.

Run from the repo root: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.ui.make_oauth_screenshots``.
Writes ``docs/screenshots/oauth-*.png``. The page talks to the real OAuth test server: one
server is signed in (by the stand-in browser), one shows ``auth required``.
"""

from __future__ import annotations

import os
import sys
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ELFTIA_DATA_DIR"] = tempfile.mkdtemp(prefix="elftia-shots-")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
os.environ["DISPLAY"] = ""
os.environ["WAYLAND_DISPLAY"] = ""

from PySide6.QtWidgets import QApplication

from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.ui.dialogs.server_form import McpServerForm
from elftia_desktop.ui.pages.servers_page import McpServersPage
from tests.helpers.live_router import add_servers, live_router
from tests.helpers.oauth_gui import ThreadBrowser, oauth_server_input
from tests.servers.serve_http import serve_http
from tests.ui.make_screenshots import OUT, each_theme, save, settle


def shoot_form(app: QApplication, suffix: str) -> None:
    """The form with OAuth chosen and the advanced fields unfolded."""
    form = McpServerForm()
    form.show()
    form.ui.name.setText("linear")
    form.ui.transport.set_value("http")
    form.ui.url.setText("https://mcp.linear.app/mcp")
    auth = form.ui.auth
    auth.mode.setCurrentIndex(2)
    auth.client_id.setText("elftia-desktop")
    auth.scopes.setText("read write")
    auth.fold.click()
    form.resize(1000, 900)
    save(app, form, f"oauth-form{suffix}")
    form.close()


def main() -> None:
    """Write the screenshots."""
    OUT.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv)
    light = app.palette()
    ConfigStore().mutate(lambda records: None)
    with serve_http("oauth") as url:
        linear, notion = add_servers(oauth_server_input("Linear", url), oauth_server_input("Notion", url))
        with live_router() as (router, _loop):
            browser = ThreadBrowser()
            router.signals.signInStarted.connect(browser.visit)
            for suffix in each_theme(app, light):
                page = McpServersPage(router)
                page.resize(1000, 520)
                page.show()
                settle(app, lambda p=page: len(p.cards) == 2)  # type: ignore[misc]
                if not suffix:
                    page.cards[linear.id].buttons["sign-in"].click()
                    router.servers.reconnect(notion.id)
                card = page.cards[linear.id]
                settle(app, lambda c=card: "signed in as" in c.auth_label.text())  # type: ignore[misc]
                settle(app, lambda p=page: p.cards[notion.id].badge.state == "auth_required")  # type: ignore[misc]
                if not suffix:
                    settle(app, lambda p=page: "Signed in to" in p.notice.label.text())  # type: ignore[misc]
                save(app, page, f"oauth-servers{suffix}")
                page.close()
                shoot_form(app, suffix)


if __name__ == "__main__":
    main()
