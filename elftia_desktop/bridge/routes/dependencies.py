"""Dependency channels: is a server's runtime installed, install it (with Cancel), uninstall it."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from elftia_desktop.application.dependencies import RuntimeInstalls
from elftia_desktop.bridge.pending import Pending, Progress
from elftia_desktop.bridge.plumbing import Report, Route, RouterCore
from elftia_desktop.bridge.results import OwnInterpreter, RuntimeView

if TYPE_CHECKING:
    from elftia_desktop.bridge.channels import DependencyInput
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.models import DependencyCheckResult, DependencyInstallResult
    from elftia_desktop.deps.overview import RuntimeRow


class DependencyRoute(Route):
    """``mcp:check-dependency``, ``mcp:dependencies``, ``mcp:install-dependency`` (and its cancel),
    ``mcp:uninstall-dependency``."""

    def __init__(self, core: RouterCore) -> None:
        super().__init__(core)
        self._installs = RuntimeInstalls()
        """The running installs; only ever used inside work on the service loop."""

    def rows(self) -> Pending[list[RuntimeView]]:
        """``mcp:dependencies``: every runtime of the table, checked, with the servers that need it."""

        async def work(s: AppServices) -> list[RuntimeView]:
            """``mcp:dependencies`` on the service loop."""
            from elftia_desktop.deps.overview import runtime_rows

            rows = await runtime_rows(s.deps, s.installer, await s.mcp.list_servers())
            return [runtime_view(row) for row in rows]

        return self._core.submit("mcp:dependencies", work)

    def check(self, command: str) -> Pending[DependencyCheckResult]:
        """``mcp:check-dependency``: is the runtime of ``command`` installed."""
        from elftia_desktop.bridge.channels import DependencyInput

        return self._core.call(
            "mcp:check-dependency", DependencyInput, {"command": command}, lambda s, d: s.deps.check(d.command)
        )

    def install(self, command: str) -> Pending[DependencyInstallResult]:
        """``mcp:install-dependency``: each output line is a progress report (``Progress.message``) and goes
        to ``logLine`` with the source ``deps:{command}``.

        A cancelled install (:meth:`cancel_install`, ``Pending.cancel``, or the app quitting) removes what it
        had started; :meth:`cancel_install` ends it with a result whose ``cancelled`` is true.
        """
        from elftia_desktop.bridge.channels import DependencyInput

        signals = self._core.signals

        async def work(s: AppServices, dep: DependencyInput, report: Report) -> DependencyInstallResult:
            """``mcp:install-dependency`` on the service loop."""

            def progress(line: str) -> None:
                """One progress line, out as a progress report and ``logLine``."""
                report(Progress(line))
                signals.logLine.emit(f"deps:{dep.command}", line)

            return await self._installs.install(s.installer, dep.command, progress, s.running)

        return self._core.call_reporting("mcp:install-dependency", DependencyInput, {"command": command}, work)

    def cancel_install(self, command: str) -> Pending[bool]:
        """``mcp:cancel-install``: stop the running install of ``command``; False when none runs.

        The installer removes what it had started; the install's ``then`` callback gets its result.
        """
        from elftia_desktop.bridge.channels import DependencyInput

        async def work(_s: AppServices, dep: DependencyInput) -> bool:
            """``mcp:cancel-install`` on the service loop."""
            return self._installs.cancel(dep.command)

        return self._core.call("mcp:cancel-install", DependencyInput, {"command": command}, work)

    def uninstall(self, command: str) -> Pending[DependencyInstallResult]:
        """``mcp:uninstall-dependency``: remove a runtime the app installed in its tools folder."""
        from elftia_desktop.bridge.channels import DependencyInput

        return self._core.call(
            "mcp:uninstall-dependency",
            DependencyInput,
            {"command": command},
            lambda s, d: s.installer.uninstall(d.command),
        )


def runtime_view(row: RuntimeRow) -> RuntimeView:
    """A checked runtime as the Dependencies page shows it."""
    runtime, check = row.runtime, row.check
    own = OwnInterpreter(tuple(row.own_interpreter), sys.executable) if row.own_interpreter else None
    return RuntimeView(
        name=runtime.name,
        title=runtime.title,
        commands=runtime.commands,
        status=row.status,
        version=check.version,
        path=check.path,
        minimum=runtime.minimum_text,
        reason=runtime.reason,
        managed=row.managed,
        can_install=row.can_install,
        install_source=row.install_source,
        needed_by=tuple(row.needed_by),
        own_interpreter=own,
        instructions=row.instructions,
        problem=row.problem,
    )
