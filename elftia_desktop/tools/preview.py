"""What each provider would receive for a set of tools: the payload, the converter's notes, tokens.

The tool picker shows this for OpenAI Chat, OpenAI Responses, Anthropic and Gemini; the Agents
page shows each agent's tool count and token size. Pure functions (CPU work: callers on the
service loop run them in a worker thread).
"""

from __future__ import annotations

from collections.abc import Sequence

from elftia_desktop.core.models import AgentToolSummary, MCPTool, ProviderPayload
from elftia_desktop.tools.formats.openai import MAX_TOOLS
from elftia_desktop.tools.loader import convert_tools
from elftia_desktop.tools.tokens import count_tokens

PREVIEW_FORMATS = {
    "openai": "OpenAI Chat",
    "openai-responses": "OpenAI Responses",
    "anthropic": "Anthropic",
    "gemini": "Gemini",
}
"""The providers the picker previews, by converter format."""
TOOL_LIMITS = {"openai": MAX_TOOLS, "openai-responses": MAX_TOOLS}
"""Documented maximum tools per request (OpenAI: 128); the others publish none."""


def provider_payload(tools: Sequence[MCPTool], fmt: str, *, strict: bool = False) -> ProviderPayload:
    """The payload of ``tools`` for one format, with its notes, what the limit left out and its tokens."""
    conversion = convert_tools(list(tools), fmt, strict=strict)
    count = count_tokens(conversion.payload, fmt)
    return ProviderPayload(
        format=fmt,
        label=PREVIEW_FORMATS.get(fmt, fmt),
        payload=conversion.payload,
        tool_count=len(conversion.name_map),
        limit=TOOL_LIMITS.get(fmt),
        skipped=list(conversion.skipped),
        notes=[str(note) for note in conversion.notes],
        tokens=count.tokens,
        tokens_exact=count.exact,
        token_method=count.method,
    )


def preview_payloads(tools: Sequence[MCPTool], *, strict: bool = False) -> list[ProviderPayload]:
    """:func:`provider_payload` for every format of :data:`PREVIEW_FORMATS`, in that order."""
    return [provider_payload(tools, fmt, strict=strict) for fmt in PREVIEW_FORMATS]


def tool_summary(agent_id: str, tools: Sequence[MCPTool], errors: dict[str, str]) -> AgentToolSummary:
    """An agent's tool count and the tokens of its OpenAI Chat payload."""
    payload = provider_payload(tools, "openai")
    return AgentToolSummary(
        agent_id=agent_id,
        tool_count=len(tools),
        tokens=payload.tokens,
        token_method=payload.token_method,
        errors=dict(errors),
    )
