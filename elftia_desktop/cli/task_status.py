"""``call``'s status lines for a task-augmented call: one line on stderr each time the task changes.

A line reads ``task 786512e2…: working: step 2 of 3`` (the id shortened, the server's
``statusMessage`` after the status). The same lines come from an in-process call and from one
run by the pool host (its ``taskStatus`` frames); the final result is printed as for any call.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from elftia_desktop.connections.events import TaskStatus

ID_SHOWN = 12
"""Characters of a task id shown before the ellipsis."""


class TaskStatusLines:
    """Prints a task's status on ``stream`` when it changes (a repeated poll prints nothing)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self._last: dict[str, tuple[str, str]] = {}

    def __call__(self, task: TaskStatus) -> None:
        """Show one state of a task."""
        task_id, status, message = task.task_id, task.status, task.status_message or ""
        if self._last.get(task_id) == (status, message):
            return
        self._last[task_id] = (status, message)
        shown = task_id if len(task_id) <= ID_SHOWN else task_id[:ID_SHOWN] + "…"
        line = f"task {shown}: {status}" + (f": {message}" if message else "")
        print(line, file=self._stream or sys.stderr, flush=True)
