"""``McpToolAdapter``: a pool server's tool (``MCPTool``) as an ``ITool`` for the agent engine.

The adapter delegates to ``McpService.call_tool``; the pool owns the connection. Whatever goes
wrong (an error result, a timeout, a lost server) comes back as text the agent can read. A tool
that is not auto-approved runs only when the adapter's approval callback allows it
(:func:`~elftia_desktop.engine.approval.check_approval`); without a callback it is refused.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence
from typing import Any, Protocol

from elftia_desktop.core.errors import ElftiaError, ServerTimeout
from elftia_desktop.core.models import MCPCallToolResponse, MCPTool
from elftia_desktop.engine.approval import ApprovalSource, Asker, approval_request, check_approval
from elftia_desktop.engine.content import describe_exception, tool_result_text

log = logging.getLogger(__name__)

CALL_TIMEOUT = 120.0
"""Seconds one tool call may take (the original's ``Promise.race`` with 120 s, like ShellTool)."""


class ToolService(ApprovalSource, Protocol):
    """The part of ``McpService`` the adapters use."""

    async def list_server_tools(self, server_id: str) -> list[MCPTool]:
        """The enabled tools of one server."""
        ...

    async def call_tool(
        self,
        server_id: str,
        tool_name: str,
        args: dict[str, Any],
        call_id: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - McpService's parameter name
    ) -> MCPCallToolResponse:
        """Call one tool."""
        ...


def new_call_id() -> str:
    """A fresh id for one tool call (shown with the ``ToolCalled`` event)."""
    return f"call_{uuid.uuid4().hex[:16]}"


class McpToolAdapter:
    """An ``ITool`` for one tool of a pool server; its name is ``MCPTool.id`` (``mcp__server__tool``)."""

    def __init__(
        self, mcp_tool: MCPTool, service: ToolService, *, timeout: float = CALL_TIMEOUT, approve: Asker | None = None
    ) -> None:
        """``approve`` asks a person before a tool that is not auto-approved runs (None: such a call is refused)."""
        self.mcp_tool = mcp_tool
        self.service = service
        self.timeout = timeout
        self.approve = approve

    @property
    def name(self) -> str:
        """``MCPTool.id``."""
        return self.mcp_tool.id

    @property
    def description(self) -> str:
        """``MCPTool.description`` (empty when the server gave none)."""
        return self.mcp_tool.description or ""

    @property
    def parameters(self) -> dict[str, Any]:
        """``MCPTool.inputSchema``."""
        return self.mcp_tool.input_schema

    async def needs_approval(self, params: dict[str, Any]) -> bool:
        """Whether a call with ``params`` would be put to the approval callback first."""
        tool = self.mcp_tool
        return await approval_request(self.service, tool.server_id, tool.name, params) is not None

    async def execute(self, params: dict[str, Any]) -> str:
        """Call the tool through the service once approved; the flattened content, or an ``Error: ...`` text."""
        refusal = await check_approval(self.service, self.mcp_tool.server_id, self.mcp_tool.name, params, self.approve)
        if refusal is not None:
            return f"Error: {refusal.text}"
        text, _failed = await call_service_tool(
            self.service, self.mcp_tool.server_id, self.mcp_tool.name, params, label=self.name, timeout=self.timeout
        )
        return text


async def call_service_tool(
    service: ToolService,
    server_id: str,
    tool_name: str,
    params: dict[str, Any],
    *,
    label: str,
    timeout: float = CALL_TIMEOUT,  # noqa: ASYNC109 - passed on to McpService as well
) -> tuple[str, bool]:
    """Call a tool through the service under ``timeout``; (text for the agent, whether it failed).

    ``label`` is the name the agent knows the tool by, used in error texts.
    """
    try:
        async with asyncio.timeout(timeout):
            response = await service.call_tool(server_id, tool_name, params, call_id=new_call_id(), timeout=timeout)
    except (TimeoutError, ServerTimeout):
        return f"Error: tool {label} did not answer within {timeout:g} s; the call was abandoned.", True
    except ElftiaError as exc:
        return f"Error: tool {label} could not be called: {exc}", True
    except Exception as exc:
        log.exception("tool %s failed unexpectedly", label)
        return f"Error: tool {label} failed unexpectedly: {describe_exception(exc)}", True
    return tool_result_text(label, response.is_error, response.content), response.is_error


async def _server_adapters(service: ToolService, server_id: str, approve: Asker | None) -> list[McpToolAdapter]:
    return [McpToolAdapter(tool, service, approve=approve) for tool in await service.list_server_tools(server_id)]


async def load_mcp_tools(
    service: ToolService, server_ids: Sequence[str], approve: Asker | None = None
) -> list[McpToolAdapter]:
    """Adapters for the tools of every server in ``server_ids``, fetched concurrently; each asks ``approve``.

    A server that fails (not found, not trusted, cannot start) is logged and left out; the
    others load. The order follows ``server_ids``.
    """
    outcomes = await asyncio.gather(
        *(_server_adapters(service, sid, approve) for sid in server_ids), return_exceptions=True
    )
    adapters: list[McpToolAdapter] = []
    for server_id, outcome in zip(server_ids, outcomes, strict=True):
        if isinstance(outcome, Exception):
            log.warning("tools of server %s left out: %s", server_id, describe_exception(outcome))
        elif isinstance(outcome, BaseException):
            raise outcome
        else:
            adapters.extend(outcome)
    return adapters
