"""The SDK's prompts, resources and contents, listed skills and tool reviews as ``results_explore``'s types.

The routes call these on the service loop; nothing of the SDK reaches the widgets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import mcp_types as types
from pydantic import BaseModel

from elftia_desktop.bridge.results_explore import (
    Discovery,
    HeldTools,
    PromptArgument,
    PromptInfo,
    PromptMessage,
    RenderedPrompt,
    ResourceContent,
    ResourceInfo,
    ResourceRead,
    ResourceTemplateInfo,
    ReviewRow,
    ServerInfo,
    SkillView,
    ToolInfo,
    ToolReview,
)
from elftia_desktop.core.apps import tool_is_app_only
from elftia_desktop.core.tool_pins import LintFinding, definition_diff

if TYPE_CHECKING:
    from elftia_desktop.connections.skills import ListedSkill
    from elftia_desktop.connections.tool_guard import ToolReview as GuardReview
    from elftia_desktop.core.models import McpDiscoverResult


def _json(model: BaseModel) -> dict[str, Any]:
    """An SDK object as JSON with the protocol's field names."""
    return dict(model.model_dump(mode="json", by_alias=True, exclude_none=True))


def _dicts(items: object) -> tuple[dict[str, Any], ...]:
    return tuple(dict(i) for i in items if isinstance(i, Mapping)) if isinstance(items, list) else ()


def tool_info(tool: Mapping[str, Any]) -> ToolInfo:
    """A listed tool (as JSON) for Discover."""
    annotations = tool.get("annotations")
    hint = annotations.get("readOnlyHint") if isinstance(annotations, Mapping) else None
    schema = tool.get("inputSchema")
    return ToolInfo(
        name=str(tool.get("name", "")),
        description=str(tool.get("description") or ""),
        input_schema=dict(schema) if isinstance(schema, Mapping) else {},
        read_only_hint=hint if isinstance(hint, bool) else None,
        app_only=tool_is_app_only(tool),
        icons=_dicts(tool.get("icons")),
        definition=dict(tool),
    )


def server_info(info: Mapping[str, Any] | None) -> ServerInfo | None:
    """The connection's ``serverInfo`` with the agreed extensions (None before a connection)."""
    if info is None:
        return None
    extensions = info.get("extensions")
    return ServerInfo(
        name=str(info.get("name") or ""),
        version=str(info.get("version") or ""),
        extensions=tuple(str(e) for e in extensions) if isinstance(extensions, list) else (),
        icons=_dicts(info.get("icons")),
    )


def prompt_info(prompt: types.Prompt) -> PromptInfo:
    """A listed prompt."""
    arguments = tuple(PromptArgument(a.name, a.description or "", bool(a.required)) for a in prompt.arguments or ())
    return PromptInfo(prompt.name, prompt.title, prompt.description or "", arguments)


def resource_info(resource: types.Resource) -> ResourceInfo:
    """A listed resource."""
    return ResourceInfo(resource.name, resource.uri, resource.description or "", resource.mime_type or "")


def template_info(template: types.ResourceTemplate) -> ResourceTemplateInfo:
    """A listed resource template."""
    return ResourceTemplateInfo(
        template.name, template.uri_template, template.description or "", template.mime_type or ""
    )


def discovery(result: McpDiscoverResult) -> Discovery:
    """``mcp:discover``'s answer from the service's (its lists are the protocol's JSON)."""
    errors = result.errors
    resources_error = "; ".join(e for e in (errors.get("resources"), errors.get("resourceTemplates")) if e)
    return Discovery(
        success=result.success,
        error=result.error,
        server=server_info(result.server_info),
        tools=tuple(tool_info(t) for t in result.tools),
        prompts=tuple(prompt_info(types.Prompt.model_validate(p)) for p in result.prompts),
        resources=tuple(resource_info(types.Resource.model_validate(r)) for r in result.resources),
        templates=tuple(template_info(types.ResourceTemplate.model_validate(t)) for t in result.resource_templates),
        tools_error=errors.get("tools", ""),
        prompts_error=errors.get("prompts", ""),
        resources_error=resources_error,
    )


def rendered_prompt(result: types.GetPromptResult) -> RenderedPrompt:
    """``prompts/get``'s answer."""
    messages = tuple(PromptMessage(m.role, _json(m.content)) for m in result.messages)
    return RenderedPrompt(result.description, messages)


def resource_read(result: types.ReadResourceResult) -> ResourceRead:
    """``resources/read``'s answer."""
    contents = tuple(
        ResourceContent(
            uri=c.uri,
            mime_type=c.mime_type,
            text=c.text if isinstance(c, types.TextResourceContents) else None,
            blob=c.blob if isinstance(c, types.BlobResourceContents) else None,
            meta=dict(c.meta or {}),
        )
        for c in result.contents
    )
    return ResourceRead(contents, _json(result))


def skill_view(listed: ListedSkill) -> SkillView:
    """A listed skill with its pin status."""
    skill = listed.skill
    return SkillView(
        uri=skill.uri,
        name=skill.name,
        description=skill.description,
        status=listed.status,
        held=listed.held,
        files=skill.files,
        findings=tuple(listed.findings),
    )


def tool_review(review: GuardReview) -> ToolReview:
    """The tool guard's review of one server."""
    rows = tuple(
        ReviewRow(i.name, i.status, tuple(definition_diff(i.before, i.after)), tuple(i.findings)) for i in review.items
    )
    return ToolReview(review.server_id, review.pinned, rows, tuple(review.pinned_findings))


def held_tools(held: Mapping[str, Mapping[str, Any]]) -> dict[str, HeldTools]:
    """The pins file's held and flagged tools per server (``tool_guard.held_tools``) as typed rows."""
    return {
        server_id: HeldTools(
            held=tuple(str(n) for n in entry.get("held") or ()),
            flagged=tuple(str(n) for n in entry.get("flagged") or ()),
            findings=tuple(
                LintFinding(str(f.get("tool", "")), str(f.get("rule", "")), str(f.get("detail", "")))
                for f in entry.get("findings") or ()
            ),
        )
        for server_id, entry in held.items()
    }
