"""The composition root: starts the service loop thread and shows the main window.

Nothing slow happens before the window shows: the services (config store, keyring, the mcp
SDK) are built on the service loop on first use, off the UI thread.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Start the desktop app (or, in a frozen app, a built-in server when asked to)."""
    argv = list(sys.argv if argv is None else argv)
    from elftia_desktop.builtin_servers.launcher import maybe_run_builtin_server

    if maybe_run_builtin_server(argv):  # before Qt is imported: the child serves MCP on stdio
        return 0

    from PySide6.QtCore import QEvent, QObject, QSettings
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication, QMessageBox

    from elftia_desktop.bridge.app_lifecycle import QuitController
    from elftia_desktop.bridge.router import McpRouter
    from elftia_desktop.bridge.service_loop import ServiceLoop
    from elftia_desktop.bridge.services import AppServices, build_services
    from elftia_desktop.core.errors import UnsafePermissions
    from elftia_desktop.core.paths import config_dir, data_dir
    from elftia_desktop.core.resources import resource_path
    from elftia_desktop.ui.main_window import MainWindow
    from elftia_desktop.ui.probe import install_probe
    from elftia_desktop.ui.single_instance import SingleInstance, instance_name
    from elftia_desktop.ui.theme import apply_theme

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(argv)
    app.setApplicationName("Elftia Desktop")
    app.setOrganizationName("Elftia")
    app.setDesktopFileName("elftia-desktop")
    try:
        folder = data_dir()
        config_dir()
    except UnsafePermissions as exc:  # a folder every user may change: say how to fix it, start nothing
        print(f"elftia-desktop: {exc}", file=sys.stderr)
        QMessageBox.critical(None, "Elftia Desktop cannot start", str(exc))
        return 2
    instance = SingleInstance(instance_name(str(folder)), app)
    if instance.hand_over(argv[1:]):  # the running app comes forward and opens the link
        return 0
    apply_theme(app)
    app.setWindowIcon(QIcon(str(resource_path("icons/elftia-desktop-256.png"))))

    class PaletteWatcher(QObject):
        """Re-applies the theme when the system switches between light and dark."""

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.ApplicationPaletteChange:
                apply_theme(app)
            return False

    watcher = PaletteWatcher(app)
    app.installEventFilter(watcher)

    loop: ServiceLoop[AppServices] = ServiceLoop(build_services)
    loop.start()
    router = McpRouter(loop)
    settings = QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)
    window = MainWindow(router, settings)
    instance.argumentsReceived.connect(window.handle_arguments)
    instance.listen()
    install_probe(window, router)
    window.show()
    window.handle_arguments(argv[1:])

    async def close(services: AppServices) -> None:
        await services.close()

    QuitController(app, loop, close).install(window)  # window close, Ctrl+Q, signals, logout
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
