"""Dependency channels: is a server's runtime installed, install it (with Cancel), uninstall it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QObject, Slot

from elftia_desktop.application.dependencies import RuntimeInstalls
from elftia_desktop.bridge.plumbing import Done, Failed, Reply, Route, RouterCore
from elftia_desktop.bridge.results import JsonDict
from elftia_desktop.bridge.signals import RouterSignals

if TYPE_CHECKING:
    from elftia_desktop.bridge.channels import DependencyInput
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.models import DependencyCheckResult, DependencyInstallResult


class DependencyRoute(Route):
    """``mcp:check-dependency``, ``mcp:dependencies``, ``mcp:install-dependency`` (and its cancel),
    ``mcp:uninstall-dependency``."""

    def __init__(self, core: RouterCore) -> None:
        super().__init__(core)
        self._installs = RuntimeInstalls()
        """The running installs; only ever used inside work on the service loop."""

    def rows(
        self,
        *,
        receiver: QObject | None = None,
        on_done: Done[list[JsonDict]] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:dependencies``: every runtime of the table, checked, with the servers that need it."""

        async def work(s: AppServices) -> list[JsonDict]:
            """``mcp:dependencies`` on the service loop."""
            from elftia_desktop.deps.overview import runtime_rows

            rows = await runtime_rows(s.deps, s.installer, await s.mcp.list_servers())
            return [row.to_json_dict() for row in rows]

        return self._core.submit(Reply("mcp:dependencies", receiver, on_done, on_error), work)

    def check(
        self,
        command: str,
        *,
        receiver: QObject | None = None,
        on_done: Done[DependencyCheckResult] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:check-dependency``: is the runtime of ``command`` installed."""
        from elftia_desktop.bridge.channels import DependencyInput

        reply = Reply("mcp:check-dependency", receiver, on_done, on_error)
        return self._core.call(reply, DependencyInput, {"command": command}, lambda s, d: s.deps.check(d.command))

    def install(
        self,
        command: str,
        on_progress: Callable[[str], None] | None = None,
        *,
        receiver: QObject | None = None,
        on_done: Done[DependencyInstallResult] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:install-dependency``: progress lines go to ``on_progress`` (on the UI thread, while the
        receiver lives) and to ``logLine`` with the source ``deps:{command}``.

        A cancelled install (:meth:`cancel_install`, or the app quitting) ends with a result whose
        ``cancelled`` is true.
        """
        from elftia_desktop.bridge.channels import DependencyInput

        signals = self._core.signals
        if on_progress is not None:
            if receiver is None:
                raise TypeError("mcp:install-dependency: on_progress needs a receiver")
            feed = ProgressFeed(signals, f"deps:{command}", on_progress, receiver)
            on_done, on_error = feed.then(on_done), feed.then(on_error)

        async def work(s: AppServices, dep: DependencyInput) -> DependencyInstallResult:
            """``mcp:install-dependency`` on the service loop."""

            def progress(line: str) -> None:
                """One progress line, out as ``logLine``."""
                signals.logLine.emit(f"deps:{dep.command}", line)

            return await self._installs.install(s.installer, dep.command, progress, s.running)

        reply = Reply("mcp:install-dependency", receiver, on_done, on_error)
        return self._core.call(reply, DependencyInput, {"command": command}, work)

    def cancel_install(
        self,
        command: str,
        *,
        receiver: QObject | None = None,
        on_done: Done[bool] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:cancel-install``: stop the running install of ``command``; False when none runs.

        The installer removes what it had started; the install's ``on_done`` then gets its result.
        """
        from elftia_desktop.bridge.channels import DependencyInput

        async def work(_s: AppServices, dep: DependencyInput) -> bool:
            """``mcp:cancel-install`` on the service loop."""
            return self._installs.cancel(dep.command)

        reply = Reply("mcp:cancel-install", receiver, on_done, on_error)
        return self._core.call(reply, DependencyInput, {"command": command}, work)

    def uninstall(
        self,
        command: str,
        *,
        receiver: QObject | None = None,
        on_done: Done[DependencyInstallResult] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:uninstall-dependency``: remove a runtime the app installed in its tools folder."""
        from elftia_desktop.bridge.channels import DependencyInput

        reply = Reply("mcp:uninstall-dependency", receiver, on_done, on_error)
        return self._core.call(
            reply, DependencyInput, {"command": command}, lambda s, d: s.installer.uninstall(d.command)
        )


T = TypeVar("T")


class ProgressFeed(QObject):
    """One install's progress lines (``logLine`` with its source) passed to ``on_progress`` on the UI thread.

    A child of the receiver: when the receiver is destroyed, so is the feed, and Qt cuts its
    connection itself; when the install ends first, :meth:`close` cuts it and deletes the feed.
    Either way the connection is cut exactly once.
    """

    def __init__(self, signals: RouterSignals, source: str, on_progress: Callable[[str], None], owner: QObject) -> None:
        super().__init__(owner)
        self._source = source
        self._on_progress = on_progress
        self._signals: RouterSignals | None = signals
        signals.logLine.connect(self.relay)

    @Slot(str, str)
    def relay(self, source: str, line: str) -> None:
        """Pass on a log line of this install's source."""
        if source == self._source:
            self._on_progress(line)

    def close(self) -> None:
        """Stop passing lines (idempotent) and let the feed go."""
        signals, self._signals = self._signals, None
        if signals is not None:
            signals.logLine.disconnect(self.relay)
            self.deleteLater()

    def then(self, callback: Callable[[T], None] | None) -> Callable[[T], None]:
        """``callback`` (done or failed) preceded by :meth:`close`."""

        def run(outcome: T) -> None:
            """Close the feed, then call back."""
            self.close()
            if callback is not None:
                callback(outcome)

        return run
