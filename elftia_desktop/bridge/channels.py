"""Parameter models of the router channels that have no model in ``core.models``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from elftia_desktop.core.settings_store import AppSettings


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


# -- integrations: import from and export to other apps -------------------------------------------


class SourceRefInput(_Params):
    """One config file of another app (as ``mcp:detect-configs`` lists it)."""

    app: str = Field(min_length=1)
    """The app's id (``claude-desktop``, ``cursor`` ...)."""
    path: str = Field(min_length=1)
    """The file."""
    scope: Literal["user", "project"] = "user"
    project_path: str | None = None
    """The project folder of a project file."""


class ImportPreviewInput(_Params):
    """``mcp:preview-import``: what importing these files would do."""

    sources: list[SourceRefInput] = Field(min_length=1)


class ImportInput(ImportPreviewInput):
    """``mcp:import``: import the chosen rows; each row says what to do when its name is taken."""

    choices: dict[str, Literal["rename", "skip", "replace"]] = Field(min_length=1)
    """Row key (from the preview) -> conflict policy; rows not named are not imported."""


class ExportInput(_Params):
    """``mcp:export``: our servers in another app's format."""

    server_ids: list[str] = Field(min_length=1)
    format: Literal["claude-desktop", "claude-code", "cursor", "vscode"]
    """The target format."""


class ExportFileInput(ExportInput):
    """``mcp:export-file``: write (or merge into) a file the user chose."""

    path: str = Field(min_length=1)


class AppWriteInput(ExportInput):
    """``mcp:export-into-app``: write into the app's own config, as planned."""

    digest: str = Field(min_length=64, max_length=64)
    """The fingerprint of the file when the diff was made (``mcp:plan-export-into-app``)."""
    after_digest: str = Field(min_length=64, max_length=64)
    """The fingerprint of the text the user saw in the diff."""


class ClaudePushInput(_Params):
    """``mcp:claude-push``: add one of our servers to Claude Code."""

    server_id: str = Field(min_length=1)
    scope: Literal["user", "local", "project"] = "user"


# -- settings ---------------------------------------------------------------------------------------


class BackupInput(_Params):
    """``app:export-backup``: where to write the backup of the whole config."""

    path: str = Field(min_length=1)


class SettingsSaveInput(AppSettings):
    """``app:save-settings``: every setting, validated (a bad value names its field)."""


# -- explore: try a tool, prompts, resources ---------------------------------------------------


class GetPromptInput(_Params):
    """``mcp:get-prompt``."""

    server_id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    """The prompt's name."""
    arguments: dict[str, str] = Field(default_factory=dict)
    """Argument values (prompt arguments are strings)."""


class ReadResourceInput(_Params):
    """``mcp:read-resource``: a resource's URI, or a template's URI with its variables filled in."""

    server_id: str = Field(min_length=1)
    uri: str = Field(min_length=1, max_length=8192)


# -- install links (issue 15) ----------------------------------------------------------------


class InstallLinkInput(_Params):
    """``app:parse-link``."""

    link: str = Field(min_length=1, max_length=64_000)
    """The ``elftia://install-mcp?...`` link as the desktop handed it over."""


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
