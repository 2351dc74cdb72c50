"""Screenshots of trying tools, prompts, resources and the Activity, light and dark.

Run from the repo root: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m tests.ui.make_try_screenshots``.
Writes ``docs/screenshots/try-*.png``, ``discover-*.png`` and ``activity-*.png``; everything
talks to the real ``explore`` test server.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ELFTIA_DATA_DIR"] = tempfile.mkdtemp(prefix="elftia-shots-")
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

from PySide6.QtWidgets import QApplication, QWidget

from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpServerRecord
from elftia_desktop.ui.dialogs.discover_activity import ActivityDialog
from elftia_desktop.ui.dialogs.discover_dialog import DiscoverDialog
from elftia_desktop.ui.dialogs.try_history import TryHistory
from elftia_desktop.ui.dialogs.try_tool_dialog import TryToolDialog
from elftia_desktop.ui.pages.servers_page import McpServersPage
from tests.helpers.live_router import add_servers, live_router, server_input
from tests.ui.make_screenshots import OUT, each_theme, settle

ORDER = {
    "customer": {"name": "Ada Lovelace", "email": "ada@example.com", "address": {"street": "1 Analytical Way"}},
    "items": [{"sku": "ENG-1", "quantity": 2}, {"sku": "CARD-7", "quantity": 1}],
    "priority": "high",
}


def save(app: QApplication, widget: QWidget, name: str) -> None:
    """Grab ``widget`` into ``docs/screenshots/<name>.png``."""
    settle(app)
    widget.grab().save(str(OUT / f"{name}.png"))
    print("wrote", OUT / f"{name}.png")


def discovered(app: QApplication, router: McpRouter, record: McpServerRecord) -> DiscoverDialog:
    dialog = DiscoverDialog(router, record)
    dialog.resize(900, 640)
    dialog.show()
    settle(app, lambda: dialog.discovered is not None)
    return dialog


def try_dialog(router: McpRouter, record: McpServerRecord, tools: dict[str, Any], name: str) -> TryToolDialog:
    dialog = TryToolDialog(router, record.id, tools[name], record.name, history=TryHistory())
    dialog.show()
    return dialog


def shoot_try(app: QApplication, router: McpRouter, record: McpServerRecord, tools: dict[str, Any], sfx: str) -> None:
    """The order form with its result, the same form with errors, a call in progress, an image result."""
    dialog = try_dialog(router, record, tools, "create_order")
    dialog.form.set_value(ORDER)
    dialog.call()
    save(app, dialog, f"try-errors{sfx}")
    sent = ORDER | {"customer": ORDER["customer"] | {"address": {"street": "1 Way", "city": "London"}}}
    dialog.form.set_value(sent)
    dialog.call()
    settle(app, lambda: dialog.result_view.outcome != "")
    save(app, dialog, f"try-result{sfx}")
    dialog.form.set_value(sent | {"priority": "low", "gift": True})
    dialog.call()
    settle(app, lambda: dialog.history_list.count() == 2)
    dialog.side.setCurrentIndex(1)
    save(app, dialog, f"try-history{sfx}")
    dialog.close()
    dialog = try_dialog(router, record, tools, "count")
    dialog.form.set_value({"steps": 10, "delay": 0.4})
    dialog.call()
    settle(app, lambda: dialog.progress.maximum() == 1000 and dialog.progress.value() >= 300)
    save(app, dialog, f"try-progress{sfx}")
    dialog.cancel()
    settle(app, lambda: dialog.result_view.outcome != "")
    dialog.close()
    dialog = try_dialog(router, record, tools, "picture")
    dialog.call()
    settle(app, lambda: dialog.result_view.outcome != "")
    save(app, dialog, f"try-image{sfx}")
    dialog.close()


def shoot_discover(app: QApplication, router: McpRouter, record: McpServerRecord, sfx: str) -> None:
    """Prompts with rendered messages, a resource template read, the Activity tab."""
    dialog = discovered(app, router, record)
    save(app, dialog, f"discover-try{sfx}")
    dialog.show_tab("prompts")
    assert dialog.prompts.form is not None
    dialog.prompts.form.set_value({"language": "Python", "code": "def add(a, b):\n    return a + b"})
    dialog.prompts.get_prompt()
    settle(app, lambda: dialog.prompts.result_view.outcome != "")
    save(app, dialog, f"discover-prompts{sfx}")
    dialog.show_tab("resources")
    dialog.resources.select("memo://logo")
    dialog.resources.read()
    settle(app, lambda: dialog.resources.result_view.outcome != "")
    save(app, dialog, f"discover-resources{sfx}")
    dialog.resources.select("memo://notes/{topic}")
    assert dialog.resources.form is not None
    dialog.resources.form.set_value({"topic": "cats"})
    dialog.resources.read()
    settle(app, lambda: dialog.resources.result_view.outcome != "")
    save(app, dialog, f"discover-template{sfx}")
    dialog.show_tab("activity")
    save(app, dialog, f"discover-activity{sfx}")
    dialog.close()


def make_calls(app: QApplication, router: McpRouter, record: McpServerRecord) -> None:
    """A few real calls so the activity has something to show."""
    pending: list[int] = []
    plan: list[tuple[str, dict[str, Any]]] = [("picture", {}), ("count", {"steps": 2, "delay": 0.05})] * 3
    plan += [("refuse", {"reason": "closed on Sundays"}), ("count", {"steps": 3, "delay": 0.1}), ("sound", {})]
    for index, (tool, args) in enumerate(plan):
        done: Callable[[Any], None] = lambda _r: pending.append(1)  # noqa: E731
        router.explore.try_tool(record.id, tool, args).then(router.signals, done, done)
        settle(app, lambda n=index: len(pending) > n)  # type: ignore[misc]


def shoot_activity(app: QApplication, router: McpRouter, record: McpServerRecord, sfx: str) -> None:
    """The card with its sparkline, and the Activity dialog."""
    page = McpServersPage(router)
    page.resize(1000, 360)
    page.show()
    settle(app, lambda: record.id in page.cards and page.cards[record.id].sparkline.isVisible())
    save(app, page, f"activity-card{sfx}")
    dialog = ActivityDialog(router.activity, record.id, record.name)
    dialog.show()
    save(app, dialog, f"activity-dialog{sfx}")
    dialog.close()
    page.close()


def main() -> None:
    """Write every screenshot of this part."""
    OUT.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv)
    light = app.palette()
    ConfigStore().mutate(lambda records: None)
    (record,) = add_servers(server_input("explore", "explore"))
    with live_router() as (router, _loop):
        probe = discovered(app, router, record)
        assert probe.discovered is not None
        tools = {t.name: t.definition for t in probe.discovered.tools}
        probe.close()
        make_calls(app, router, record)
        for sfx in each_theme(app, light):
            shoot_try(app, router, record, tools, sfx)
            shoot_discover(app, router, record, sfx)
            shoot_activity(app, router, record, sfx)


if __name__ == "__main__":
    main()
