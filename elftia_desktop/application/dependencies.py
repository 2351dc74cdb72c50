"""Installing a server's runtime with Cancel: the running installs, kept on the service loop.

Every method runs on the service loop (the bridge submits them there), so the registry is never
touched from two threads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from elftia_desktop.core.models import DependencyInstallResult
    from elftia_desktop.deps.installer import DependencyInstaller


class RuntimeInstalls:
    """The installs that run now, by command, and which of them the user cancelled."""

    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task[Any]] = {}
        self._cancelled: set[str] = set()

    async def install(
        self,
        installer: DependencyInstaller,
        command: str,
        progress: Callable[[str], None],
        running: set[asyncio.Task[Any]],
    ) -> DependencyInstallResult:
        """Install ``command``'s runtime; a :meth:`cancel`, or the app quitting, ends it cleanly.

        ``running`` is the set of long work the app stops (and waits for) when it quits. A cancelled
        install returns a result with ``success`` false and ``cancelled`` true; the installer has
        removed what it had started.
        """
        task = asyncio.current_task()
        assert task is not None
        self._cancelled.discard(command)
        self._tasks[command] = task
        running.add(task)
        try:
            return await installer.install(command, progress)
        except asyncio.CancelledError:
            by_user = command in self._cancelled
            task.uncancel()
            return _cancelled(command, by_user)
        finally:
            self._cancelled.discard(command)
            self._tasks.pop(command, None)
            running.discard(task)

    def cancel(self, command: str) -> bool:
        """Stop the running install of ``command``; False when none runs."""
        task = self._tasks.get(command)
        if task is None:
            return False
        self._cancelled.add(command)
        task.cancel()
        return True


def _cancelled(command: str, by_user: bool) -> DependencyInstallResult:
    from elftia_desktop.core.models import DependencyInstallResult

    why = "The install was cancelled" if by_user else "The install was stopped because the app is quitting"
    return DependencyInstallResult(
        command=command, success=False, cancelled=True, error=f"{why}; what it had started was removed."
    )
