"""The tasks the pool follows (:class:`TaskBook`), kept in the data folder so the next pool host finds them.

The pool host keeps one book for every window and command attached to it, and writes it to
``tasks.json`` beside the config file at each change: a window that restarts (and with it the
pool host) lists the tasks still running and those that ended, and follows the unfinished ones
again (``task_runner.py``; the extension asks clients to keep task ids for that). Every change of
a task goes out as a :class:`~elftia_desktop.connections.events.TaskStatus` event (saved in the
book as its JSON).

:func:`watching` lets a caller also see the states of the tasks its calls become (a command
prints them).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from elftia_desktop.connections.events import TERMINAL, ServiceEvents, TaskStatus
from elftia_desktop.connections.task_calls import TaskState
from elftia_desktop.core.atomic_file import atomic_write_text
from elftia_desktop.core.models import McpServerRecord

log = logging.getLogger(__name__)

MAX_ENDED = 200
"""Ended tasks kept in the book (the oldest go first)."""
TASKS_FILE_NAME = "tasks.json"

Watcher = Callable[[TaskStatus], None]
_watcher: contextvars.ContextVar[Watcher | None] = contextvars.ContextVar("task_watcher", default=None)


@contextlib.contextmanager
def watching(watcher: Watcher) -> Iterator[None]:
    """Within the block, the tasks of the calls made here also report each state to ``watcher``
    (a command prints them, the host sends them to its command)."""
    token = _watcher.set(watcher)
    try:
        yield
    finally:
        _watcher.reset(token)


@dataclass
class TaskEntry:
    """One task: whose it is and where it stands."""

    server_id: str
    server_name: str
    tool_name: str
    task_id: str
    call_id: str | None
    status: str = "working"
    status_message: str | None = None
    started_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    poll_interval_ms: int | None = None
    watcher: Watcher | None = field(default=None, repr=False)

    @classmethod
    def from_status(cls, saved: TaskStatus) -> TaskEntry:
        """The entry of a saved state (the book as an earlier pool host left it)."""
        return cls(
            saved.server_id,
            saved.server_name,
            saved.tool_name,
            saved.task_id,
            saved.call_id,
            saved.status,
            saved.status_message,
            saved.started_at,
            saved.updated_at,
            saved.poll_interval_ms,
        )

    @property
    def ended(self) -> bool:
        """Whether it reached a terminal status."""
        return self.status in TERMINAL

    def snapshot(self) -> TaskStatus:
        """Where the task stands now, as the ``TaskStatus`` event carries it."""
        return TaskStatus(
            self.server_id,
            self.server_name,
            self.tool_name,
            self.task_id,
            self.call_id,
            self.status,
            self.status_message,
            self.started_at,
            self.updated_at,
            self.poll_interval_ms,
        )


class TaskBook:
    """Every task the pool followed, oldest first; each change emitted as ``TaskStatus`` and saved to ``path``."""

    def __init__(self, events: ServiceEvents, path: Path | None = None) -> None:
        self._events = events
        self._path = path
        self._entries: dict[tuple[str, str], TaskEntry] = {}
        self._unsaved: str | None = None
        self._writer: asyncio.Task[None] | None = None
        for entry in _load(path):
            self._entries[(entry.server_id, entry.task_id)] = entry

    def add(self, record: McpServerRecord, tool_name: str, task_id: str, call_id: str | None) -> TaskEntry:
        """Start keeping a task the server just created (watched by the ``watching`` block it was made in)."""
        entry = TaskEntry(record.id, record.name, tool_name, task_id, call_id, watcher=_watcher.get())
        self._entries[(record.id, task_id)] = entry
        self._trim()
        self._save()
        return entry

    def update(self, entry: TaskEntry, state: TaskState) -> None:
        """Record a state the server reported (or that the task ended here), emit it and save the book."""
        changed = (entry.status, entry.status_message) != (state.status, state.status_message)
        entry.status, entry.status_message, entry.updated_at = state.status, state.status_message, time.time()
        entry.poll_interval_ms = state.poll_interval_ms or entry.poll_interval_ms
        if changed:
            self._save()
        status = entry.snapshot()
        self._events.emit(status)
        if entry.watcher is not None:
            try:
                entry.watcher(status)
            except Exception:  # a watcher's fault must not stop the task
                log.exception("a task watcher failed")

    def get(self, server_id: str, task_id: str) -> TaskEntry | None:
        """The entry of a task, None when the book does not hold it."""
        return self._entries.get((server_id, task_id))

    def entries(self) -> list[TaskEntry]:
        """Every entry, oldest first."""
        return list(self._entries.values())

    def _trim(self) -> None:
        ended = [key for key, entry in self._entries.items() if entry.ended]
        for key in ended[: max(0, len(ended) - MAX_ENDED)]:
            del self._entries[key]

    async def flush(self) -> None:
        """Wait until the last change is on disk (the pool closes)."""
        while self._writer is not None:
            await asyncio.shield(self._writer)

    def _save(self) -> None:
        """Have the book written off the loop: one writer at a time, always the latest text (atomic, not fsynced)."""
        if self._path is None:
            return
        self._unsaved = json.dumps(
            {"tasks": [entry.snapshot().as_json() for entry in self._entries.values()]}, indent=1
        )
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write(self._path))

    async def _write(self, path: Path) -> None:
        try:
            while self._unsaved is not None:
                text, self._unsaved = self._unsaved, None
                try:
                    await asyncio.to_thread(atomic_write_text, path, text, durable=False)
                except OSError:
                    log.warning("could not save the tasks to %s", path, exc_info=True)
        finally:
            self._writer = None


def task_book_path(config_path: Path) -> Path:
    """Where the book is kept: beside the config file."""
    return config_path.with_name(TASKS_FILE_NAME)


def _load(path: Path | None) -> list[TaskEntry]:
    """The saved entries; a missing file is none, an unreadable one is logged and set aside as ``*.bad`` (none)."""
    if path is None or not path.exists():
        return []
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))["tasks"]
        return [TaskEntry.from_status(TaskStatus.from_json(item)) for item in saved]
    except (OSError, ValueError, KeyError, TypeError):
        aside = path.with_name(path.name + ".bad")
        with contextlib.suppress(OSError):
            path.replace(aside)  # kept for a look, never overwritten by the next save
        log.warning("%s is not a saved task list (kept as %s); starting with none", path, aside, exc_info=True)
        return []
