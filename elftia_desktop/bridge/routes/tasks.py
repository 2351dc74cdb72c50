"""Task channels (the tasks extension): the pool's tasks for the Activity page, and cancelling one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from elftia_desktop.bridge.pending import Pending
from elftia_desktop.bridge.plumbing import Route

if TYPE_CHECKING:
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.connections.events import TaskStatus


class TaskRoute(Route):
    """``mcp:tasks``, ``mcp:cancel-task``."""

    def tasks(self) -> Pending[list[TaskStatus]]:
        """``mcp:tasks``: every task the pool follows and followed (their latest states, oldest first);
        the unfinished ones an earlier pool saved are followed again."""
        return self._core.submit("mcp:tasks", lambda s: s.mcp.list_tasks())

    def cancel(self, server_id: str, task_id: str) -> Pending[bool]:
        """``mcp:cancel-task``: ``tasks/cancel`` for a running task; False when the pool does not follow it."""

        async def work(s: AppServices, sid: str) -> bool:
            """``mcp:cancel-task`` on the service loop."""
            return await s.mcp.cancel_task(sid, task_id)

        return self._by_id("mcp:cancel-task", server_id, work)
