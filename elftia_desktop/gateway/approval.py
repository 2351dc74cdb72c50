"""Who the gateway asks before a tool that is not auto-approved runs.

First the app that made the call, when it declared the elicitation capability: the form of
:func:`~elftia_desktop.core.approvals.approval_schema`, one choice among the three answers;
declining or cancelling it denies the call. Otherwise the window, when the window runs as the
pool host (:attr:`Gateway.window_approval`). Otherwise nobody: the call is refused with a text
that says how to approve the tool.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import ServerRequestContext

from elftia_desktop.core.approvals import answer_of, approval_schema
from elftia_desktop.engine.approval import Answer, ApprovalRequest, Asker
from elftia_desktop.gateway.upstream import Upstreams


def caller_asker(upstreams: Upstreams, ctx: ServerRequestContext[Any, Any], fallback: Asker | None) -> Asker:
    """Ask the calling app by elicitation; an app that cannot be asked passes the question to ``fallback``."""

    async def ask(request: ApprovalRequest) -> Answer | None:
        """The app's answer, else ``fallback``'s (None: nobody could be asked)."""
        outcome = await upstreams.ask_caller(ctx, request.question(), approval_schema())
        if outcome is None:
            return await fallback(request) if fallback is not None else None
        return answer_of(*outcome)

    return ask
