"""Dependency channels: is a server's runtime installed, install it (with Cancel), uninstall it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from elftia_desktop.bridge.errors import BridgeError
from elftia_desktop.bridge.plumbing import Done, Failed, RouterCore

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.models import DependencyInstallResult


class DependencyChannels(RouterCore):
    """``mcp:check-dependency``, ``mcp:dependencies``, ``mcp:install-dependency`` (and its cancel),
    ``mcp:uninstall-dependency``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._installs: dict[str, asyncio.Task[Any]] = {}
        """Running installs by command, on the service loop (for Cancel)."""
        self._cancelled: set[str] = set()
        """Commands whose install the user cancelled."""

    def dependencies(self, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:dependencies``: every runtime of the table, checked, with the servers that need it."""

        async def work(s: AppServices) -> list[dict[str, Any]]:
            from elftia_desktop.deps.overview import runtime_rows

            rows = await runtime_rows(s.deps, s.installer, await s.mcp.list_servers())
            return [row.to_json_dict() for row in rows]

        return self._submit("mcp:dependencies", work, on_done, on_error)

    def cancel_install(self, command: str) -> bool:
        """Stop the running install of ``command``; the installer removes what it had started.

        Returns False when no install of it runs. The install's ``on_done`` then gets a result
        with ``success`` false and ``error`` saying it was cancelled.
        """
        task = self._installs.get(command)
        if task is None:
            return False
        self._cancelled.add(command)
        self._loop.loop.call_soon_threadsafe(task.cancel)
        return True

    def uninstall_dependency(self, command: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:uninstall-dependency``: remove a runtime the app installed in its tools folder."""
        data, refused = self._validated("mcp:uninstall-dependency", "DependencyInput", {"command": command}, on_error)
        if data is None:
            return refused
        dep = data
        return self._submit("mcp:uninstall-dependency", lambda s: s.installer.uninstall(dep.command), on_done, on_error)

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

        installs, cancelled = self._installs, self._cancelled
        cancelled.discard(dep.command)

        async def work(s: AppServices) -> DependencyInstallResult:
            task = asyncio.current_task()
            assert task is not None
            installs[dep.command] = task
            s.running.add(task)
            try:
                return await s.installer.install(dep.command, progress)
            except asyncio.CancelledError:
                # by Cancel, or by the app quitting (AppServices.close): the installer has cleaned up
                by_user = dep.command in cancelled
                cancelled.discard(dep.command)
                task.uncancel()
                return _cancelled(dep.command, by_user)
            finally:
                installs.pop(dep.command, None)
                s.running.discard(task)

        return self._submit("mcp:install-dependency", work, on_done, on_error)

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


def _cancelled(command: str, by_user: bool) -> DependencyInstallResult:
    from elftia_desktop.core.models import DependencyInstallResult

    why = "The install was cancelled" if by_user else "The install was stopped because the app is quitting"
    return DependencyInstallResult(command=command, success=False, error=f"{why}; what it had started was removed.")
