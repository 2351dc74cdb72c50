"""Agents and what they get: the MCP mode, the selected servers and tools, payload previews.

Re-exported from ``core.models`` (the UI imports the models from there).
"""

from __future__ import annotations

import secrets
import time
from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator

from elftia_desktop.core.model_base import CamelModel, OpenCamelModel, now_ms
from elftia_desktop.core.text_rules import check_name


class McpMode(StrEnum):
    """How an agent picks its MCP servers."""

    DISABLED = "disabled"
    AUTO = "auto"
    MANUAL = "manual"


def new_agent_id() -> str:
    """A fresh agent id ``agent_{timestamp}_{random}``."""
    return f"agent_{int(time.time() * 1000)}_{secrets.token_hex(3)}"


class Agent(OpenCamelModel):
    """An agent and the MCP servers and tools it may use (one entry of ``agents.json``).

    Servers are referenced by id (shown by name), so renaming a server never breaks an agent.
    """

    id: str = Field(default_factory=new_agent_id)
    """Stable id ``agent_{timestamp}_{random}``; never changes."""
    name: str = Field(min_length=1)
    """Unique among agents, case-insensitive; surrounding spaces are trimmed."""
    mcp_mode: McpMode = McpMode.AUTO
    """``disabled``: no MCP tools; ``auto``: every active server; ``manual``: the selected servers."""
    selected_servers: list[str] = Field(default_factory=list)
    """Server ids used in manual mode, in the order they were picked."""
    selected_tools: dict[str, list[str]] | None = None
    """Per server id, the names of the tools the agent may use. A server not listed gives every
    tool it has; None: every tool of every server. Tools the server disables never count."""
    selected_skills: dict[str, list[str]] | None = None
    """Per server id, the URIs (of their ``SKILL.md``) of the skills the agent may use; chosen like tools.
    A server not listed gives every skill it has; None: every skill of every server. Only skills the
    user accepted (pinned) ever count: one that changed since is held back for everyone."""
    created_at: int = Field(default_factory=now_ms)
    """When the agent was created (ms since the epoch)."""
    updated_at: int | None = None
    """When it was last changed (ms since the epoch)."""

    @field_validator("name")
    @classmethod
    def _name_trimmed(cls, name: str) -> str:
        if not name.strip():
            raise ValueError("name: an agent needs a name")
        return check_name(name.strip())

    @field_validator("selected_servers")
    @classmethod
    def _servers_once(cls, servers: list[str]) -> list[str]:
        return list(dict.fromkeys(servers))

    @field_validator("selected_tools", "selected_skills")
    @classmethod
    def _tools_once(cls, tools: dict[str, list[str]] | None) -> dict[str, list[str]] | None:
        return None if tools is None else {server: list(dict.fromkeys(names)) for server, names in tools.items()}

    def allows_tool(self, server_id: str, tool_name: str) -> bool:
        """Whether the agent's own tool selection lets this tool through (the mode is not checked)."""
        if self.selected_tools is None or server_id not in self.selected_tools:
            return True
        return tool_name in self.selected_tools[server_id]

    def allows_skill(self, server_id: str, skill_uri: str) -> bool:
        """Whether the agent's own skill selection lets this skill through (the mode is not checked)."""
        if self.selected_skills is None or server_id not in self.selected_skills:
            return True
        return skill_uri in self.selected_skills[server_id]


class ProviderPayload(CamelModel):
    """One provider's view of a set of tools: the exact ``tools`` payload and what was changed for it."""

    format: str
    """``openai``, ``openai-responses``, ``anthropic`` or ``gemini``."""
    label: str
    """The provider as people name it (``OpenAI Chat`` ...)."""
    payload: list[dict[str, Any]] = Field(default_factory=list)
    """The ``tools`` value of the request, exactly as it would be sent."""
    tool_count: int = 0
    """Tools in the payload."""
    limit: int | None = None
    """The provider's documented maximum number of tools per request, if it has one."""
    skipped: list[str] = Field(default_factory=list)
    """Tools left out because the payload would pass the limit."""
    notes: list[str] = Field(default_factory=list)
    """What the converter changed or dropped, one line per change (one line for the same change to many tools)."""
    tokens: int = 0
    """Tokens of the payload's JSON."""
    tokens_exact: bool = False
    """True when a real tokenizer of this provider counted them; otherwise an estimate."""
    token_method: str = ""
    """Which tokenizer, or how the estimate was made."""


class AgentToolSummary(CamelModel):
    """What one agent gets: the count of its tools and the size of their definitions."""

    agent_id: str
    tool_count: int = 0
    tokens: int = 0
    """Tokens of its OpenAI Chat payload."""
    token_method: str = ""
    errors: dict[str, str] = Field(default_factory=dict)
    """Server id -> why its tools are missing."""


class AgentUpdate(CamelModel):
    """``agents:update``'s change: the fields given are set, the others kept (a selection given as None: every
    tool or skill of every server again)."""

    name: str | None = None
    mcp_mode: McpMode | None = None
    selected_servers: list[str] | None = None
    selected_tools: dict[str, list[str]] | None = None
    selected_skills: dict[str, list[str]] | None = None

    def to_updates(self) -> dict[str, Any]:
        """The change in JSON spelling, as the agent store merges it: only the fields given."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)
