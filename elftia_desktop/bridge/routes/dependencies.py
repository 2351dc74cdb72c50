"""Dependency channels: is a server's runtime installed, install it (with Cancel), uninstall it."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from elftia_desktop.application.dependencies import RuntimeInstalls
from elftia_desktop.bridge.errors import BridgeError
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
        source = f"deps:{command}"
        if on_progress is not None:
            if receiver is None:
                raise TypeError("mcp:install-dependency: on_progress needs a receiver")
            listener = _progress_listener(source, on_progress)
            signals.logLine.connect(listener)  # cut when the install ends or the receiver goes
            on_done, on_error = _then(on_done, listener, signals), _then_error(on_error, listener, signals)
            receiver.destroyed.connect(lambda: _disconnect(signals, listener))

        async def work(s: AppServices, dep: DependencyInput) -> DependencyInstallResult:
            def progress(line: str) -> None:
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


Listener = Callable[[str, str], None]


def _progress_listener(source: str, on_progress: Callable[[str], None]) -> Listener:
    def listener(line_source: str, line: str) -> None:
        if line_source == source:
            on_progress(line)

    return listener


def _disconnect(signals: RouterSignals, listener: Listener) -> None:
    with contextlib.suppress(RuntimeError, TypeError):
        signals.logLine.disconnect(listener)


def _then(
    callback: Done[DependencyInstallResult] | None, listener: Listener, signals: RouterSignals
) -> Done[DependencyInstallResult]:
    def run(result: DependencyInstallResult) -> None:
        _disconnect(signals, listener)
        if callback is not None:
            callback(result)

    return run


def _then_error(callback: Failed | None, listener: Listener, signals: RouterSignals) -> Failed:
    def run(error: BridgeError) -> None:
        _disconnect(signals, listener)
        if callback is not None:
            callback(error)

    return run
