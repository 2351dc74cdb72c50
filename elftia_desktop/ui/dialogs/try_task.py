"""The Try dialog's task (the tasks extension): a call that became a task shows its state, and outlives the dialog.

:class:`TaskWatch` follows the router's ``taskStatus`` signal for the dialog's running call: the
progress bar and the status line read ``task working: step 2 of 3``, and the status line says the
task goes on when the dialog closes. The dialog's Cancel still cancels it (``tasks/cancel``); closing the dialog only
forgets the call, and the task stays in the pool, on the Activity page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Slot

if TYPE_CHECKING:
    from elftia_desktop.bridge.router import McpRouter
    from elftia_desktop.ui.dialogs.try_tool_dialog import TryToolDialog

ENDED = ("completed", "failed", "cancelled")


class TaskWatch(QObject):
    """The task of the dialog's running call, when it became one."""

    def __init__(self, dialog: TryToolDialog, router: McpRouter) -> None:
        super().__init__(dialog)
        self._dialog = dialog
        self._router = router
        self.task: dict[str, Any] | None = None
        """The latest state of the call's task (the ``task:status`` payload), None while it is a plain call."""
        router.signals.taskStatus.connect(self._on_task)

    @property
    def running(self) -> bool:
        """Whether the running call is a task that has not ended (closing the dialog leaves it running)."""
        return self.task is not None and self.task["status"] not in ENDED

    def reset(self) -> None:
        """A new call: no task yet."""
        self.task = None

    def stop(self) -> None:
        """The dialog closes: no more states."""
        self._router.signals.taskStatus.disconnect(self._on_task)

    @Slot(object)
    def _on_task(self, task: dict[str, Any]) -> None:
        dialog = self._dialog
        if dialog.call_id is None or task.get("callId") != dialog.call_id:
            return
        self.task = task
        message = task.get("statusMessage")
        state = f"task {task['status']}" + (f": {message}" if message else "")
        dialog.progress.setFormat(state)
        if self.running:
            dialog.status.setText(
                f"{state[:1].upper()}{state[1:]}. Closing this window leaves it running (see Activity)."
            )
