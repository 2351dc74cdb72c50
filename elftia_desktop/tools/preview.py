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
from elftia_desktop.tools.notes import Note
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
        notes=grouped_notes(conversion.notes),
        tokens=count.tokens,
        tokens_exact=count.exact,
        token_method=count.method,
    )


def grouped_notes(notes: Sequence[Note], shown: int = 6) -> list[str]:
    """One line per distinct change; the same change to several tools is one line that names them."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for note in notes:
        groups.setdefault((note.path, note.action, note.detail), []).append(note.tool)
    lines = []
    for (path, action, detail), tools in groups.items():
        where = f" {path}" if path else ""
        if len(tools) == 1:
            lines.append(f"{tools[0]}{where}: {action}: {detail}")
            continue
        names = ", ".join(tools[:shown]) + (f" and {len(tools) - shown} more" if len(tools) > shown else "")
        lines.append(f"{len(tools)} tools ({names}){where}: {action}: {detail}")
    return lines


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
