"""Explore channels: try a tool (with progress and Cancel), get a prompt, read a resource.

Also owns the in-memory :class:`~elftia_desktop.bridge.activity.ActivityLog` fed by
``toolCalled``, so every window part sees the same recent calls.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from elftia_desktop.bridge.activity import ActivityLog
from elftia_desktop.bridge.plumbing import Done, Failed, RouterCore

if TYPE_CHECKING:
    from elftia_desktop.bridge.service_loop import ServiceLoop
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.core.models import MCPCallToolResponse


@dataclass(frozen=True)
class TimedCall:
    """The answer of ``mcp:try-tool``: the tool's response and how long the call took."""

    response: MCPCallToolResponse
    duration_ms: float


class ExploreChannels(RouterCore):
    """``mcp:try-tool``, ``mcp:cancel-call``, ``mcp:get-prompt``, ``mcp:read-resource``.

    Signals:
        toolProgress(object): ``{serverId, toolName, callId, progress, total, message}``.
    """

    toolProgress = Signal(object)

    def __init__(self, loop: ServiceLoop[AppServices], parent: QObject | None = None) -> None:
        super().__init__(loop, parent)
        self.activity = ActivityLog(self)
        """Recent tool calls per server (bounded, in memory)."""
        self.toolCalled.connect(self.activity.record)

    def _wire_events(self, services: AppServices) -> None:
        first = not self._events_wired
        super()._wire_events(services)
        if first:
            services.mcp.events.on("tool:progress", lambda p: self.toolProgress.emit(dict(p)))

    def try_tool(self, params: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:try-tool``: ``{serverId, toolName, args, callId}``; the result is a :class:`TimedCall`."""
        data, refused = self._validated("mcp:try-tool", "TryToolInput", params, on_error)
        if data is None:
            return refused
        call = data

        async def work(s: AppServices) -> TimedCall:
            started = time.perf_counter()
            response = await s.mcp.signed_in(  # an OAuth server may ask to sign in first (in place)
                call.server_id, lambda: s.mcp.call_tool(call.server_id, call.tool_name, call.args, call.call_id)
            )
            return TimedCall(response, (time.perf_counter() - started) * 1000)

        return self._submit("mcp:try-tool", work, on_done, on_error)

    def cancel_call(self, call_id: str, on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:cancel-call``: True when the call was running (the server is sent ``notifications/cancelled``)."""
        data, refused = self._validated("mcp:cancel-call", "CancelCallInput", {"callId": call_id}, on_error)
        if data is None:
            return refused
        valid = data.call_id

        async def work(s: AppServices) -> bool:
            return s.mcp.cancel_call(valid)

        return self._submit("mcp:cancel-call", work, on_done, on_error)

    def get_prompt(self, params: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:get-prompt``: ``{serverId, name, arguments}``; the result is ``{description?, messages}``."""
        data, refused = self._validated("mcp:get-prompt", "GetPromptInput", params, on_error)
        if data is None:
            return refused
        ask = data
        return self._submit(
            "mcp:get-prompt", lambda s: s.mcp.prompt_json(ask.server_id, ask.name, ask.arguments), on_done, on_error
        )

    def read_resource(self, params: dict[str, Any], on_done: Done | None = None, on_error: Failed | None = None) -> int:
        """``mcp:read-resource``: ``{serverId, uri}``; the result is ``{contents: [...]}``."""
        data, refused = self._validated("mcp:read-resource", "ReadResourceInput", params, on_error)
        if data is None:
            return refused
        read = data
        return self._submit(
            "mcp:read-resource", lambda s: s.mcp.resource_json(read.server_id, read.uri), on_done, on_error
        )
