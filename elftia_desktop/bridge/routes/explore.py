"""Explore channels: try a tool (with progress and Cancel), get a prompt, read a resource."""

from __future__ import annotations

from collections.abc import Mapping
from time import perf_counter
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from elftia_desktop.bridge.plumbing import Done, Failed, Reply, Route
from elftia_desktop.bridge.results import JsonDict, TimedCall
from elftia_desktop.bridge.routes.tools import call_signed_in, refusal_of

if TYPE_CHECKING:
    from elftia_desktop.bridge.channels import TryToolInput
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.engine.approval import Asker


class ExploreRoute(Route):
    """``mcp:try-tool``, ``mcp:cancel-call``, ``mcp:get-prompt``, ``mcp:read-resource``.

    A tried call's progress arrives as the ``toolProgress`` signal, named by its call id.
    """

    def try_tool(
        self,
        server_id: str,
        tool_name: str,
        args: Mapping[str, object],
        call_id: str,
        *,
        receiver: QObject | None = None,
        on_done: Done[TimedCall] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:try-tool``: a call from the window; ``call_id`` names it for progress and :meth:`cancel_call`."""
        from elftia_desktop.bridge.channels import TryToolInput

        reply = Reply("mcp:try-tool", receiver, on_done, on_error)
        params = {"serverId": server_id, "toolName": tool_name, "args": dict(args), "callId": call_id}
        return self._core.call(reply, TryToolInput, params, lambda s, c: _timed_call(s, c, self._core.approve))

    def cancel_call(
        self,
        call_id: str,
        *,
        receiver: QObject | None = None,
        on_done: Done[bool] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:cancel-call``: True when the call was running (the server is sent ``notifications/cancelled``)."""
        from elftia_desktop.bridge.channels import CancelCallInput

        async def work(s: AppServices, data: CancelCallInput) -> bool:
            """``mcp:cancel-call`` on the service loop."""
            return s.mcp.cancel_call(data.call_id)

        reply = Reply("mcp:cancel-call", receiver, on_done, on_error)
        return self._core.call(reply, CancelCallInput, {"callId": call_id}, work)

    def get_prompt(
        self,
        server_id: str,
        name: str,
        arguments: Mapping[str, str],
        *,
        receiver: QObject | None = None,
        on_done: Done[JsonDict] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:get-prompt``: the prompt's ``{description?, messages}`` as the server sent it."""
        from elftia_desktop.bridge.channels import GetPromptInput

        reply = Reply("mcp:get-prompt", receiver, on_done, on_error)
        params = {"serverId": server_id, "name": name, "arguments": dict(arguments)}
        return self._core.call(
            reply, GetPromptInput, params, lambda s, p: s.mcp.prompt_json(p.server_id, p.name, p.arguments)
        )

    def read_resource(
        self,
        server_id: str,
        uri: str,
        *,
        receiver: QObject | None = None,
        on_done: Done[JsonDict] | None = None,
        on_error: Failed | None = None,
    ) -> int:
        """``mcp:read-resource``: the resource's ``{contents: [...]}`` as the server sent it."""
        from elftia_desktop.bridge.channels import ReadResourceInput

        reply = Reply("mcp:read-resource", receiver, on_done, on_error)
        params = {"serverId": server_id, "uri": uri}
        return self._core.call(reply, ReadResourceInput, params, lambda s, r: s.mcp.resource_json(r.server_id, r.uri))


async def _timed_call(s: AppServices, call: TryToolInput, approve: Asker | None) -> TimedCall:
    """The call once approved (the user is asked for a tool that is not auto-approved), timed from the answer
    on: the time the user spent on the question is not the tool's. A refusal took no time of the tool's."""
    refusal = await refusal_of(s, call.server_id, call.tool_name, call.args, approve)
    if refusal is not None:
        return TimedCall(refusal, 0.0)
    started = perf_counter()
    response = await call_signed_in(s, call.server_id, call.tool_name, call.args, call.call_id)
    return TimedCall(response, (perf_counter() - started) * 1000)
