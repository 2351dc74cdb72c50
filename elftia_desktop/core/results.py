"""What servers and runtimes answer: test, discover, tool lists, tool calls, dependency checks and installs.

Re-exported by ``core.models`` (the one module of ``core`` the UI imports).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from elftia_desktop.core.errors import ElftiaError
from elftia_desktop.core.model_base import CamelModel as _Model


class McpTestResult(_Model):
    """The outcome of ``test``: connect and list tools."""

    success: bool
    tools: list[str] = Field(default_factory=list)
    duration_ms: float = 0.0
    error: str | None = None
    reason: str | None = None
    """Why it failed, without the server's name (``error`` names it)."""
    server_info: dict[str, Any] | None = None


class McpDiscoverResult(_Model):
    """Everything a server offers; a kind that failed is named in ``errors``."""

    success: bool
    tools: list[dict[str, Any]] = Field(default_factory=list)
    prompts: list[dict[str, Any]] = Field(default_factory=list)
    resources: list[dict[str, Any]] = Field(default_factory=list)
    resource_templates: list[dict[str, Any]] = Field(default_factory=list)
    errors: dict[str, str] = Field(default_factory=dict)
    error: str | None = None
    server_info: dict[str, Any] | None = None


class MCPTool(_Model):
    """One tool of one server, as the agents see it."""

    id: str
    """``mcp__{server}__{tool}``, non-alphanumerics as ``_``."""
    server_id: str
    server_name: str
    name: str
    description: str | None = None
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    type: Literal["mcp"] = "mcp"


class McpToolListing(_Model):
    """Tools of several servers; a server that failed is named in ``errors`` with the reason."""

    tools: list[MCPTool] = Field(default_factory=list)
    errors: dict[str, str] = Field(default_factory=dict)
    """Server id -> why its tools are missing (the message names the server)."""
    reasons: dict[str, str] = Field(default_factory=dict)
    """Server id -> the same without the server's name, for a view that names the server itself."""

    def add_failure(self, server_id: str, error: ElftiaError | str) -> None:
        """Record that a server's tools are missing, and why (a text: a sentence that needs no name taken off)."""
        self.errors[server_id] = str(error)
        self.reasons[server_id] = error if isinstance(error, str) else error.reason


class MCPCallToolResponse(_Model):
    """The result of a tool call: ``{isError, content}`` plus ``structuredContent`` when sent."""

    is_error: bool
    content: list[dict[str, Any]] = Field(default_factory=list)
    structured_content: dict[str, Any] | None = None


class DependencyCheckResult(_Model):
    """Whether a runtime a server needs is on this machine."""

    command: str
    installed: bool
    path: str | None = None
    version: str | None = None
    meets_minimum: bool = True
    installable: bool = False
    instructions: str | None = None
    runtime: str | None = None
    """The runtime the command belongs to (``node`` for ``npx``)."""
    reason: str | None = None
    """Why a user needs it."""


class DependencyInstallResult(_Model):
    """The outcome of installing a runtime."""

    command: str
    success: bool
    path: str | None = None
    version: str | None = None
    log: list[str] = Field(default_factory=list)
    error: str | None = None
    instructions: str | None = None
    cancelled: bool = False
    """The install was cancelled (by the user, or the app quitting) and cleaned up."""
