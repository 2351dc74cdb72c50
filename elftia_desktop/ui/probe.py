"""A diagnostics probe for the packaged app's smoke test and start-up benchmark.

Off unless ``ELFTIA_PROBE`` names a file. Then the app appends JSON lines to that file:
``{"event": "shown", "time": <epoch s>, "pid": N}`` after the main window's first paint, and one
answer per command. Commands are read from ``<file>.cmd`` (checked every 100 ms, removed once
read), one per line:

- ``call SERVER TOOL [JSON]``: call a tool through the router, as the window would
  (answer ``called`` with ``ok``, ``text`` or ``error``);
- ``forms``: the add forms that are open, with their parameters, and how many main windows show;
- ``apps-view``: render a tiny MCP App view in QtWebEngine (answer ``apps-view`` with ``ok`` once the
  view's first message arrives through the relay, or ``error`` without QtWebEngine);
- ``pages FOLDER``: show every page of the main window in turn and save its picture as
  ``FOLDER/<page>.png`` (answer ``pages`` with, per page, whether it showed and the picture's size);
- ``quit``: close the windows and quit, the way the user does.

Only someone who can set the app's environment can turn it on; it adds no network listener.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.router import McpRouter
from elftia_desktop.core.models import MCPCallToolResponse, McpServerRecord

PROBE_ENV = "ELFTIA_PROBE"
POLL_MS = 100


class AppProbe(QObject):
    """Reports the first paint of ``window`` and answers commands (see the module docstring)."""

    def __init__(self, window: QMainWindow, router: McpRouter, path: Path) -> None:
        super().__init__(window)
        self.window = window
        self.router = router
        self.path = path
        self.commands = path.with_name(path.name + ".cmd")
        self.shown = False
        window.installEventFilter(self)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._poll)
        self.timer.start(POLL_MS)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Note the window's first paint."""
        if not self.shown and watched is self.window and event.type() == QEvent.Type.Paint:
            self.shown = True
            self.write({"event": "shown", "time": time.time(), "pid": os.getpid()})
        return False

    def write(self, event: Mapping[str, object]) -> None:
        """Append one JSON line to the probe file."""
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(event) + "\n")

    def _poll(self) -> None:
        if not self.commands.exists():
            return
        lines = self.commands.read_text(encoding="utf-8").splitlines()
        self.commands.unlink()
        for line in lines:
            try:
                self._run(line.strip())
            except ValueError as exc:  # JSON arguments that do not parse
                self.write({"event": "error", "error": f"{line!r}: {exc}"})

    def _run(self, line: str) -> None:
        word, _, rest = line.partition(" ")
        if word == "call":
            server, _, tail = rest.partition(" ")
            tool, _, args = tail.partition(" ")
            self._call(server, tool, json.loads(args) if args else {})
        elif word == "forms":
            self.write({"event": "forms", "forms": _open_forms(), "mainWindows": _main_windows()})
        elif word == "apps-view":
            self._apps_view()
        elif word == "pages" and not rest.strip():
            self.write({"event": "error", "error": "pages: give the folder to save the pictures in"})
        elif word == "pages":
            self._pages(Path(rest.strip()))
        elif word == "quit":
            QApplication.closeAllWindows()
            QApplication.quit()
        elif word:
            self.write({"event": "error", "error": f"unknown probe command {word!r}"})

    def _call(self, server: str, tool: str, args: Mapping[str, object]) -> None:
        def failed(error: BridgeError) -> None:
            """Report the failed call."""
            self.write({"event": "called", "ok": False, "error": error.message})

        def listed(records: list[McpServerRecord]) -> None:
            """Find the server by name and call its tool."""
            match = [r for r in records if r.name.lower() == server.lower()]
            if not match:
                self.write({"event": "called", "ok": False, "error": f"no server named {server!r}"})
                return
            self.router.tools.call(match[0].id, tool, args).then(self, done, failed)

        def done(result: MCPCallToolResponse) -> None:
            """Report the call's result."""
            self.write({"event": "called", "ok": not result.is_error, "result": result.to_json_dict()})

        self.router.servers.records().then(self, listed, failed)

    def _pages(self, folder: Path) -> None:
        from elftia_desktop.ui.main_window import PAGES, MainWindow

        window = self.window
        if not isinstance(window, MainWindow):
            self.write({"event": "pages", "pages": {}, "error": "the probe's window has no pages"})
            return
        folder.mkdir(parents=True, exist_ok=True)
        shown: dict[str, object] = {}
        for key, _, _ in PAGES:  # the sidebar's order
            page = window.pages[key]
            window.show_page(key)
            picture = window.grab()
            saved = picture.save(str(folder / f"{key}.png"))
            shown[key] = {"shown": page.isVisible() and saved, "size": [picture.width(), picture.height()]}
        window.show_page(PAGES[0][0])
        self.write({"event": "pages", "pages": shown})

    def _apps_view(self) -> None:
        from elftia_desktop.ui.apps import webengine_available

        if not webengine_available():
            self.write({"event": "apps-view", "ok": False, "error": "QtWebEngine is not installed"})
            return
        from elftia_desktop.ui.apps.web import AppFrame

        document = "<script>parent.postMessage({jsonrpc: '2.0', method: 'ui/notifications/initialized'}, '*')</script>"
        frame = AppFrame(document, [])
        frame.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def received(text: str) -> None:
            """The view's message crossed the relay: the engine works."""
            self.write({"event": "apps-view", "ok": True, "message": text})
            frame.close()

        frame.received.connect(received)
        frame.show()


def _open_forms() -> list[dict[str, object]]:
    from elftia_desktop.ui.dialogs.server_form import McpServerForm

    forms = [w for w in QApplication.topLevelWidgets() if isinstance(w, McpServerForm) and w.isVisible()]
    return [{"title": f.windowTitle(), "params": f.draft().as_json()} for f in forms]


def _main_windows() -> int:
    return sum(1 for w in QApplication.topLevelWidgets() if isinstance(w, QMainWindow) and w.isVisible())


def install_probe(window: QMainWindow, router: McpRouter) -> AppProbe | None:
    """The probe when ``ELFTIA_PROBE`` is set, else ``None``."""
    target = os.environ.get(PROBE_ENV)
    return AppProbe(window, router, Path(target)) if target else None
