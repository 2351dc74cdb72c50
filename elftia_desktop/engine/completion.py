"""``CompletionService``: a chat request with the agent's MCP tools injected, and the model's tool calls run.

The original ``CompletionService`` called ``setupMcpTools`` before each chat request and put
the converted tools into the payload. Here :meth:`CompletionService.prepare` builds the request
body for a provider (OpenAI Chat Completions or Responses, Anthropic Messages, Gemini
``generateContent``) with the tools, and :meth:`CompletionService.answer_tool_calls` routes each
tool call of the model's response by name through the name map to ``McpService.call_tool`` and
returns the tool-result messages to append. Sending the request is up to the caller.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from elftia_desktop.core.models import Agent, McpMode, MCPTool
from elftia_desktop.core.text_rules import quoted
from elftia_desktop.engine.mcp_tool_adapter import CALL_TIMEOUT, ToolService, call_service_tool
from elftia_desktop.engine.provider_calls import (
    Provider,
    ToolCall,
    check_provider,
    extract_tool_calls,
    tool_result_item,
    tool_results_messages,
)
from elftia_desktop.tools.arguments import ArgumentError
from elftia_desktop.tools.formats.openai_strict import strip_strict_nulls
from elftia_desktop.tools.loader import ToolLister, convert_tools, fetch_mcp_tools
from elftia_desktop.tools.names import NameMap
from elftia_desktop.tools.notes import Note

log = logging.getLogger(__name__)

DEFAULT_MAX_TOKENS = 4096
"""Anthropic requires ``max_tokens``; this is used when the caller gives none."""


class CompletionToolService(ToolLister, ToolService, Protocol):
    """The part of ``McpService`` the completion helper uses: listing tools and calling them."""


@dataclass
class PreparedRequest:
    """A request body for one provider, and what is needed to route the model's tool calls."""

    provider: Provider
    model: str
    payload: dict[str, Any]
    """The JSON body (Gemini: the model goes into the URL, not the body)."""
    name_map: NameMap = field(default_factory=NameMap)
    mcp_tools: list[MCPTool] = field(default_factory=list)
    strict: bool = False
    notes: list[Note] = field(default_factory=list)
    """What the conversion changed or dropped, per tool."""
    tool_errors: dict[str, str] = field(default_factory=dict)
    """Server id -> why its tools are missing from this request."""

    def original_schema(self, server_id: str, tool_name: str) -> dict[str, Any]:
        """The MCP input schema of a tool in this request (empty when unknown)."""
        for tool in self.mcp_tools:
            if tool.server_id == server_id and tool.name == tool_name:
                return tool.input_schema
        return {}


_FORMATS: dict[Provider, str] = {
    "openai": "openai",
    "openai-responses": "openai-responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
}


def _body(
    provider: Provider, model: str, messages: list[dict[str, Any]], system: str | None, max_tokens: int | None
) -> dict[str, Any]:
    if provider == "openai":
        lead = [{"role": "system", "content": system}] if system else []
        return {"model": model, "messages": [*lead, *messages]}
    if provider == "openai-responses":
        body: dict[str, Any] = {"model": model, "input": list(messages)}
        if system:
            body["instructions"] = system
        return body
    if provider == "anthropic":
        body = {"model": model, "max_tokens": max_tokens or DEFAULT_MAX_TOKENS, "messages": list(messages)}
        if system:
            body["system"] = system
        return body
    body = {"contents": list(messages)}
    if system:
        body["systemInstruction"] = {"parts": [{"text": system}]}
    return body


class CompletionService:
    """Builds provider requests with MCP tools and answers the model's tool calls through ``McpService``."""

    def __init__(self, service: CompletionToolService, *, call_timeout: float = CALL_TIMEOUT) -> None:
        self.service = service
        self.call_timeout = call_timeout

    async def prepare(
        self,
        provider: Provider | str,
        model: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        agent: Agent | None = None,
        strict: bool = False,
        system: str | None = None,
        max_tokens: int | None = None,
        gemini_json_schema: bool = False,
    ) -> PreparedRequest:
        """The request body for ``provider`` with the tools ``agent`` may use.

        ``agent`` defaults to one in auto mode (every active server); its mode and its server and
        tool selection apply as in :func:`fetch_mcp_tools`. ``strict`` applies to the OpenAI
        formats; ``gemini_json_schema`` sends Gemini ``parametersJsonSchema`` instead of
        ``parameters``. With no tool, no ``tools`` key; servers that failed are in ``tool_errors``.
        """
        kind = check_provider(provider)
        body = _body(kind, model, [dict(m) for m in messages], system, max_tokens)
        listing = await fetch_mcp_tools(self.service, agent or Agent(name="default", mcp_mode=McpMode.AUTO))
        tools = listing.tools
        prepared = PreparedRequest(kind, model, body, strict=strict and kind.startswith("openai"))
        prepared.tool_errors = listing.errors
        if not tools:
            return prepared
        fmt = "gemini-json" if kind == "gemini" and gemini_json_schema else _FORMATS[kind]
        conversion = convert_tools(tools, fmt, strict=strict)
        for note in conversion.warnings:
            log.warning("%s", note)
        if conversion.payload:
            body["tools"] = conversion.payload
        prepared.name_map = conversion.name_map
        prepared.mcp_tools = tools
        prepared.notes = conversion.notes
        return prepared

    def tool_calls(self, prepared: PreparedRequest, response: Any) -> list[ToolCall]:
        """The tool calls in the provider's ``response`` (an SDK object or its JSON)."""
        return extract_tool_calls(prepared.provider, response)

    async def run_tool_call(self, prepared: PreparedRequest, call: ToolCall) -> dict[str, Any]:
        """Route one call by name to ``McpService.call_tool``; the provider's tool-result item.

        The arguments are mapped back to the form the server declared first (strict-mode nulls
        removed, renamed parameters restored, a wrapped input unwrapped). An unknown name, unreadable
        arguments or a failed call give an error result the model can read.
        """
        ref = prepared.name_map.resolve(call.name)
        if ref is None:
            known = ", ".join(sorted(prepared.name_map)) or "none"
            text = f"Error: there is no tool named {quoted(call.name)} in this request (tools: {known})"
            return tool_result_item(call, text, True)
        if call.argument_error is not None:
            return tool_result_item(call, f"Error: tool {call.name}: {call.argument_error}", True)
        arguments = call.arguments
        if prepared.strict:
            arguments = strip_strict_nulls(arguments, prepared.original_schema(ref.server_id, ref.tool_name))
        try:
            arguments = prepared.name_map.restore_arguments(call.name, arguments)  # Gemini renames, a wrapped input
        except ArgumentError as exc:
            return tool_result_item(call, f"Error: tool {call.name}: {exc}", True)
        text, failed = await call_service_tool(
            self.service, ref.server_id, ref.tool_name, arguments, label=call.name, timeout=self.call_timeout
        )
        return tool_result_item(call, text, failed)

    async def answer_tool_calls(self, prepared: PreparedRequest, response: Any) -> list[dict[str, Any]]:
        """Run every tool call of ``response`` concurrently; the messages to append, in call order.

        OpenAI chat: one ``tool`` message per call; Responses: ``function_call_output`` items;
        Anthropic: one ``user`` message of ``tool_result`` blocks; Gemini: one ``user`` content of
        ``functionResponse`` parts. Empty when the response has no tool call.
        """
        calls = self.tool_calls(prepared, response)
        items = await asyncio.gather(*(self.run_tool_call(prepared, call) for call in calls))
        return tool_results_messages(prepared.provider, list(items))
