"""Dependency channels: is a server's runtime installed, and install it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.plumbing import Done, Failed, RouterCore

if TYPE_CHECKING:
    pass


class DependencyChannels(RouterCore):
    """``mcp:check-dependency``, ``mcp:install-dependency``."""

    def check_dependency(self, command: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:check-dependency``: is the runtime of ``command`` installed."""
        data, refused = self._validated("mcp:check-dependency", "DependencyInput", {"command": command}, on_error)
        if data is None:
            return refused
        dep = data
        return self._submit("mcp:check-dependency", lambda s: s.deps.check(dep.command), on_done, on_error)

    def install_dependency(
        self,
        command: str,
        on_progress: Callable[[str], None] | None = None,
        on_done: Done | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:install-dependency``: progress lines go to ``on_progress`` (on the UI thread) and to
        ``logLine`` with the id ``deps:{command}``."""
        data, refused = self._validated("mcp:install-dependency", "DependencyInput", {"command": command}, on_error)
        if data is None:
            return refused
        dep = data

        source = f"deps:{dep.command}"
        if on_progress is not None:
            listener = self._progress_listener(source, on_progress)
            self.logLine.connect(listener)
            on_done, on_error = (
                _then(on_done, lambda: self.logLine.disconnect(listener)),
                _then_error(on_error, lambda: self.logLine.disconnect(listener)),
            )

        def progress(line: str) -> None:
            self.logLine.emit(source, line)

        return self._submit(
            "mcp:install-dependency", lambda s: s.installer.install(dep.command, progress), on_done, on_error
        )

    @staticmethod
    def _progress_listener(source: str, on_progress: Callable[[str], None]) -> Callable[[str, str], None]:
        def listener(line_source: str, line: str) -> None:
            if line_source == source:
                on_progress(line)

        return listener


def _then(callback: Done | None, after: Callable[[], object]) -> Done:
    def run(result: Any) -> None:
        after()
        if callback is not None:
            callback(result)

    return run


def _then_error(callback: Failed | None, after: Callable[[], object]) -> Failed:
    def run(error: BridgeError) -> None:
        after()
        if callback is not None:
            callback(error)

    return run
