"""The Try dialog's task (the tasks extension): a call that became a task shows its state, and outlives the dialog.

:class:`TaskWatch` follows the router's ``taskStatus`` signal for the dialog's running call: the
progress bar and the status line read ``task working: step 2 of 3``, and the status line says the
task goes on when the dialog closes. The dialog's Cancel cancels it (``tasks/cancel``,
:meth:`TaskWatch.cancel_task`); closing the dialog only forgets the call, and the task stays in the
pool, on the Activity page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import uuid4

from PySide6.QtCore import QObject, Slot

if TYPE_CHECKING:
    from elftia_desktop.bridge.router import McpRouter
    from elftia_desktop.bridge.signals import TaskStatus
    from elftia_desktop.ui.dialogs.try_tool_dialog import TryToolDialog


class TaskWatch(QObject):
    """The task of the dialog's running call, when it became one."""

    def __init__(self, dialog: TryToolDialog, router: McpRouter) -> None:
        super().__init__(dialog)
        self._dialog = dialog
        self._router = router
        self.call_id: str | None = None
        """The id of the dialog's latest call (the ``call_id`` of its task's states)."""
        self.task: TaskStatus | None = None
        """The latest state of the call's task, None while it is a plain call."""
        router.signals.taskStatus.connect(self._on_task)
        self._listening = True

    @property
    def running(self) -> bool:
        """Whether the running call is a task that has not ended (closing the dialog leaves it running)."""
        return self.task is not None and not self.task.ended

    def new_call(self) -> str:
        """A new call: its id (for ``explore.try_tool``); no task yet."""
        self.call_id, self.task = f"try-{uuid4().hex[:12]}", None
        return self.call_id

    def cancel_task(self) -> bool:
        """Cancel the call's running task (``tasks/cancel``; the call then ends cancelled); False when the call
        is no running task (the caller cancels the call itself)."""
        if self.task is None or not self.running:
            return False
        self._router.tasks.cancel(self.task.server_id, self.task.task_id).then(self)
        return True

    def stop(self) -> None:
        """The dialog closes: no more states (once; closing twice is fine)."""
        if self._listening:
            self._listening = False
            self._router.signals.taskStatus.disconnect(self._on_task)

    @Slot(object)
    def _on_task(self, task: TaskStatus) -> None:
        dialog = self._dialog
        if not dialog.running or task.call_id != self.call_id:
            return
        self.task = task
        message = task.status_message
        state = f"task {task.status}" + (f": {message}" if message else "")
        dialog.progress.setFormat(state)
        if self.running:
            dialog.status.setText(
                f"{state[:1].upper()}{state[1:]}. Closing this window leaves it running (see Activity)."
            )
