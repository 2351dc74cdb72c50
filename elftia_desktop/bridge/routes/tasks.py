"""Task channels (the tasks extension): the pool's tasks for the Activity page, and cancelling one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from elftia_desktop.bridge.plumbing import Done, Failed, Reply, Route
from elftia_desktop.bridge.results import JsonDict

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices


class TaskRoute(Route):
    """``mcp:tasks``, ``mcp:cancel-task``."""

    def tasks(
        self,
        *,
        receiver: QObject | None = None,
        on_done: Done[list[JsonDict]] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:tasks``: every task the pool follows and followed (``task:status`` payloads, oldest first);
        the unfinished ones an earlier pool saved are followed again."""
        return self._core.submit(Reply("mcp:tasks", receiver, on_done, on_error), lambda s: s.mcp.list_tasks())

    def cancel(
        self,
        server_id: str,
        task_id: str,
        *,
        receiver: QObject | None = None,
        on_done: Done[bool] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:cancel-task``: ``tasks/cancel`` for a running task; False when the pool does not follow it."""

        async def work(s: AppServices, sid: str) -> bool:
            return await s.mcp.cancel_task(sid, task_id)

        return self._by_id(Reply("mcp:cancel-task", receiver, on_done, on_error), server_id, work)
