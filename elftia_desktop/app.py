"""The composition root: starts the service loop thread and shows the main window.

Nothing slow happens before the window shows: the services (config store, keyring, the mcp
SDK) are built on the service loop on first use, off the UI thread.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from elftia_desktop.bridge.router import McpRouter
    from elftia_desktop.bridge.service_loop import ServiceLoop
    from elftia_desktop.bridge.services import AppServices


def main(argv: Sequence[str] | None = None) -> int:
    """Start the desktop app (or, in a frozen app, a built-in server or a sandbox's forwarder when asked to)."""
    argv = list(sys.argv if argv is None else argv)
    from elftia_desktop.builtin_servers.launcher import maybe_run_builtin_server
    from elftia_desktop.platform.sandbox_forward import maybe_run_forwarder

    if maybe_run_builtin_server(argv):  # before Qt is imported: the child serves MCP on stdio
        return 0
    forwarded = maybe_run_forwarder(argv)  # the frozen app inside a sandbox: its proxy port, then the server
    if forwarded is not None:
        return forwarded
    early = EarlyQuit()  # Ctrl+C or SIGTERM while starting: recorded, and the app ends quietly

    from PySide6.QtCore import QSettings, QTimer

    from elftia_desktop.bridge.app_lifecycle import QuitController
    from elftia_desktop.core.errors import UnsafePermissions
    from elftia_desktop.core.paths import config_dir, data_dir
    from elftia_desktop.ui.main_window import MainWindow, bundle_argument
    from elftia_desktop.ui.probe import install_probe
    from elftia_desktop.ui.single_instance import SingleInstance, instance_name
    from elftia_desktop.ui.theme import saved_theme, set_theme_mode

    if early.requested:
        return 0
    app = _application(argv)
    try:
        folder = data_dir()
    except UnsafePermissions as exc:  # a folder every user may change: say how to fix it, start nothing
        from PySide6.QtWidgets import QMessageBox

        print(f"elftia-desktop: {exc}", file=sys.stderr)
        QMessageBox.critical(None, "Elftia Desktop cannot start", str(exc))
        return 2
    instance = SingleInstance(instance_name(str(folder)), app)
    arguments = [bundle_argument(a) for a in argv[1:]]
    if instance.hand_over(arguments):  # the running app comes forward and opens the link
        return 0
    settings = QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)
    set_theme_mode(app, saved_theme(settings))  # the theme is in force before any widget exists

    loop, router = _services()
    window = MainWindow(router, settings)
    instance.argumentsReceived.connect(window.handle_arguments)
    instance.listen()
    install_probe(window, router)
    window.show()
    window.handle_arguments(arguments)
    _register_links()

    # window close, Ctrl+Q (both ask when other apps use the pool), signals and logout (they cannot ask)
    QuitController(app, loop, _close).install(window, window.request_quit, window.allow_quit)
    if early.requested:
        QTimer.singleShot(0, app.quit)
    return app.exec()


def _services() -> tuple[ServiceLoop[AppServices], McpRouter]:
    """The service loop (started; the services are built on first use) and the router; the window hosts
    the pool that gateways and CLI commands attach to."""
    from elftia_desktop.bridge.pool_host import WindowPool
    from elftia_desktop.bridge.router import McpRouter
    from elftia_desktop.bridge.service_loop import ServiceLoop
    from elftia_desktop.bridge.services import build_services

    pool = WindowPool()
    loop: ServiceLoop[AppServices] = ServiceLoop(lambda: build_services(pool))
    loop.start()
    return loop, McpRouter(loop, pool=pool)


def _register_links() -> None:
    """A frozen bundle registers ``elftia://`` and ``.mcpb`` for this user where not already done (worker thread).

    A source checkout registers nothing: its interpreter is no program to hand links to.
    """
    if not getattr(sys, "frozen", False):
        return
    import logging
    import threading

    from elftia_desktop.core.resources import resource_path
    from elftia_desktop.platform.associations import DESKTOP_FILE, register_this_app

    def register() -> None:
        """Read the menu entry's template and register (files, registry, xdg-mime: off the UI thread)."""
        try:
            template = resource_path(DESKTOP_FILE).read_text(encoding="utf-8")
        except OSError as exc:
            logging.getLogger(__name__).warning("No menu entry template to register links with: %s", exc)
            return
        register_this_app(sys.executable, template, str(resource_path("icons/elftia-desktop-256.png")))

    threading.Thread(target=register, name="register-links", daemon=True).start()


async def _close(services: AppServices) -> None:
    """Close the services when the app quits."""
    await services.close()


def _application(argv: list[str]) -> QApplication:
    """The Qt application, named and with its icon."""
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from elftia_desktop.core.resources import resource_path

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(argv)
    app.setApplicationName("Elftia Desktop")
    app.setOrganizationName("Elftia")
    app.setDesktopFileName("elftia-desktop")
    app.setWindowIcon(QIcon(str(resource_path("icons/elftia-desktop-256.png"))))
    return app


class EarlyQuit:
    """Records SIGINT, SIGTERM and SIGHUP until the quit controller takes them over.

    Without it, Ctrl+C while the modules load prints a ``KeyboardInterrupt`` traceback.
    """

    def __init__(self) -> None:
        self.requested = False
        for name in ("SIGINT", "SIGTERM", "SIGHUP"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), self._record)

    def _record(self, _signum: int, _frame: object) -> None:
        self.requested = True


if __name__ == "__main__":
    sys.exit(main())
