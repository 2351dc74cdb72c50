"""Explore channels: try a tool (with progress and Cancel), get a prompt, read a resource."""

from __future__ import annotations

from collections.abc import Mapping
from time import perf_counter
from typing import TYPE_CHECKING
from uuid import uuid4

from elftia_desktop.bridge.pending import Pending, Progress
from elftia_desktop.bridge.plumbing import Report, Route
from elftia_desktop.bridge.results import TimedCall
from elftia_desktop.bridge.results_explore import RenderedPrompt, ResourceRead
from elftia_desktop.bridge.routes.tools import call_signed_in, refusal_of

if TYPE_CHECKING:
    from elftia_desktop.bridge.channels import CallToolInput, GetPromptInput, ReadResourceInput
    from elftia_desktop.bridge.services import AppServices
    from elftia_desktop.engine.approval import Asker


class ExploreRoute(Route):
    """``mcp:try-tool``, ``mcp:get-prompt``, ``mcp:read-resource``.

    A tried call's progress reaches its ``Pending.progress`` slot; ``Pending.cancel`` cancels it upstream.
    """

    def try_tool(
        self, server_id: str, tool_name: str, args: Mapping[str, object], call_id: str | None = None
    ) -> Pending[TimedCall]:
        """``mcp:try-tool``: a call from the window, with its progress reports and cancellation (``call_id``: the
        caller's, to match the ``taskStatus`` of a call that became a task; a fresh one when None)."""
        from elftia_desktop.bridge.channels import CallToolInput

        call_id = call_id or f"try-{uuid4().hex[:12]}"
        approve = self._core.approve
        return self._core.validated(
            "mcp:try-tool",
            lambda: CallToolInput(server_id=server_id, tool_name=tool_name, args=dict(args), call_id=call_id),
            lambda s, c, report: _timed_call(s, c, approve, report),
        )

    def get_prompt(self, server_id: str, name: str, arguments: Mapping[str, str]) -> Pending[RenderedPrompt]:
        """``mcp:get-prompt``: the prompt's messages filled in with ``arguments``."""
        from elftia_desktop.bridge.channels import GetPromptInput

        return self._core.validated(
            "mcp:get-prompt",
            lambda: GetPromptInput(server_id=server_id, name=name, arguments=dict(arguments)),
            lambda s, p, _report: _prompt(s, p),
        )

    def read_resource(self, server_id: str, uri: str) -> Pending[ResourceRead]:
        """``mcp:read-resource``: the resource's contents."""
        from elftia_desktop.bridge.channels import ReadResourceInput

        return self._core.validated(
            "mcp:read-resource",
            lambda: ReadResourceInput(server_id=server_id, uri=uri),
            lambda s, r, _report: _resource(s, r),
        )


async def _prompt(s: AppServices, request: GetPromptInput) -> RenderedPrompt:
    from elftia_desktop.bridge.explore_views import rendered_prompt

    return rendered_prompt(await s.mcp.get_prompt(request.server_id, request.name, request.arguments or None))


async def _resource(s: AppServices, request: ReadResourceInput) -> ResourceRead:
    from elftia_desktop.bridge.explore_views import resource_read

    return resource_read(await s.mcp.read_resource(request.server_id, request.uri))


async def _timed_call(s: AppServices, call: CallToolInput, approve: Asker | None, report: Report) -> TimedCall:
    """The call once approved (the user is asked for a tool that is not auto-approved), timed from the answer
    on: the time the user spent on the question is not the tool's. A refusal took no time of the tool's."""
    refusal = await refusal_of(s, call.server_id, call.tool_name, call.args, approve)
    if refusal is not None:
        return TimedCall(refusal, 0.0)
    started = perf_counter()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        """A ``notifications/progress`` of this call, to its ``Pending``."""
        report(Progress(message, progress, total))

    response = await call_signed_in(s, call.server_id, call.tool_name, call.args, call.call_id, on_progress)
    return TimedCall(response, (perf_counter() - started) * 1000)
