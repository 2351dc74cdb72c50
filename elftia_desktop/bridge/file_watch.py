"""The window follows the config, agents and settings files when another process changes them.

A task on the service loop looks at the three files' stamps a few times a second
(:class:`application.outside_edits.FileStamps`: a ``stat`` each, which sees the atomic rename the
stores save with, since the stamp holds the inode). A changed config stops what was removed or
switched off and emits ``serversChanged`` (through the service's ``ServersChanged``); a changed
agents file emits ``agentsChanged``; changed settings are put in force and ``settingsChanged`` is
emitted. The window's own config saves were announced by the service already: their stamps are
taken as seen then, so they are not announced twice.

A poll rather than a ``QFileSystemWatcher``: it needs no Qt object with OS notifiers (which must be
destroyed on the UI thread), works the same on every OS and for a folder on a network share, and
costs three ``stat`` calls per look.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal, SignalInstance, Slot

from elftia_desktop.bridge.service_loop import ServiceLoop
from elftia_desktop.bridge.signals import RouterSignals
from elftia_desktop.connections.events import ServersChanged

if TYPE_CHECKING:
    from elftia_desktop.application.outside_edits import FileStamps, Kind
    from elftia_desktop.bridge.services import AppServices

log = logging.getLogger(__name__)

POLL_SECONDS = 0.4
"""Seconds between two looks at the files (a change shows in the window well within a second)."""


class _OnLoop:
    """The part that runs on the service loop: the stamps last seen, and what follows a change."""

    def __init__(self, changed: SignalInstance) -> None:
        self.changed = changed
        self.stamps: FileStamps | None = None
        self.task: asyncio.Task[None] | None = None

    def wire(self, services: AppServices) -> None:
        """Take the files' stamps and start looking at them (once the services are built)."""
        from elftia_desktop.application.outside_edits import FileStamps

        self.stamps = stamps = FileStamps(services)
        services.mcp.events.on(ServersChanged, lambda _e: stamps.seen("servers"))
        self.task = asyncio.get_running_loop().create_task(self._watch(services, stamps), name="file-watch")

    async def _watch(self, services: AppServices, stamps: FileStamps) -> None:
        """Until cancelled (the loop stops): follow each change and tell the UI thread."""
        while True:
            await asyncio.sleep(POLL_SECONDS)
            try:
                kinds = stamps.changed()
                await self.follow(services, kinds)
            except Exception as exc:  # a file being rewritten or broken: the next look tries again
                log.warning("Following a change of the data folder failed: %s", exc)
                continue
            if kinds:
                self.changed.emit(kinds)

    @staticmethod
    async def follow(services: AppServices, kinds: list[Kind]) -> None:
        """A changed settings file is put in force; a changed config stops what is gone or off."""
        from elftia_desktop.application.outside_edits import follow_servers, follow_settings

        if "settings" in kinds:
            await follow_settings(services)
        if "servers" in kinds:
            await follow_servers(services.mcp)


class FileWatch(QObject):
    """Tells the router's signals what another process changed in the data folder."""

    _changed = Signal(object)
    """The kinds of file that changed (emitted on the service loop, delivered on the UI thread)."""

    def __init__(self, loop: ServiceLoop[AppServices], signals: RouterSignals) -> None:
        super().__init__(signals)
        self._signals = signals
        self._on_loop = _OnLoop(self._changed)
        self._changed.connect(self._tell)
        loop.when_built(self._on_loop.wire)

    @Slot(object)
    def _tell(self, kinds: list[Kind]) -> None:
        if "agents" in kinds:
            self._signals.agentsChanged.emit()
        if "settings" in kinds:
            self._signals.settingsChanged.emit()
