"""Parameter models of the router channels that have no model in ``core.models``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class _Params(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class CallToolInput(_Params):
    """``mcp:call-tool``."""

    server_id: str = Field(min_length=1)
    tool_name: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)
    call_id: str | None = None


class ToolToggleInput(_Params):
    """``mcp:set-tool``: switch one tool on/off, or its auto-approval."""

    server_id: str = Field(min_length=1)
    tool_name: str = Field(min_length=1)
    flag: Literal["enabled", "autoApprove"]
    value: bool


class DependencyInput(_Params):
    """``mcp:check-dependency`` / ``mcp:install-dependency``."""

    command: str = Field(min_length=1, max_length=4096)


class ElicitationAnswer(_Params):
    """The user's answer to a server's request for input."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


# -- agents --------------------------------------------------------------------------------


class AgentInput(_Params):
    """``agents:add``: a new agent."""

    name: str = Field(min_length=1)
    mcp_mode: Literal["disabled", "auto", "manual"] = "auto"
    selected_servers: list[str] = Field(default_factory=list)
    """Server ids (manual mode)."""
    selected_tools: dict[str, list[str]] | None = None
    """Per server id, the tool names allowed; None: every tool."""


class AgentRefInput(_Params):
    """``agents:remove``: one agent by id or name."""

    id: str = Field(min_length=1)


class AgentUpdateInput(_Params):
    """``agents:update``: the fields to change (``name``, ``mcpMode``, ``selectedServers``, ``selectedTools``)."""

    id: str = Field(min_length=1)
    updates: dict[str, Any]


class AgentDuplicateInput(_Params):
    """``agents:duplicate``: copy an agent under a new name (default ``<name> copy``)."""

    id: str = Field(min_length=1)
    name: str | None = None


class AgentDraftInput(_Params):
    """``agents:tools`` / ``agents:preview``: an agent as edited in the dialog, saved or not."""

    agent: dict[str, Any]
    """The agent in the ``Agent`` JSON shape."""
    strict: bool = False
    """OpenAI strict mode for the preview."""


# -- gateway ------------------------------------------------------------------------------------


class GatewayTargetInput(_Params):
    """``gateway:*``: which app's config, for which agent, and how the entry serves."""

    app: str | None = Field(default=None, max_length=64)
    """The app (``claude-desktop``, ``claude-code``, ``cursor``, ``vscode``, ``windsurf``, ``lmstudio``)."""
    agent: str | None = Field(default=None, max_length=256)
    """The agent's name or id; None: every active server."""
    hub: bool = False
    """The entry serves ``find_tools`` and ``call_tool`` instead of every tool."""
    remove: bool = False
    """``gateway:preview`` / apply: take the entry out instead of writing it."""
