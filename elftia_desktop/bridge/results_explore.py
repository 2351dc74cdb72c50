"""Typed results of Discover's channels: what a server offers, a rendered prompt, a read resource, skills, a review.

Built in the routes from the SDK's types (``bridge/explore_views.py``); the widgets read their
attributes. What stays JSON is the protocol's own payload: a tool's definition and input schema,
a content block, icons as listed, a resource content's ``_meta``.
"""

from __future__ import annotations

from dataclasses import dataclass

from elftia_desktop.bridge.results import JsonDict
from elftia_desktop.core.skills import SkillFile
from elftia_desktop.core.tool_pins import LintFinding


@dataclass(frozen=True)
class ToolInfo:
    """One tool of ``mcp:discover``."""

    name: str
    description: str
    input_schema: JsonDict
    """The JSON Schema of its arguments."""
    read_only_hint: bool | None
    """``annotations.readOnlyHint`` (None when the server did not say)."""
    app_only: bool
    """An MCP Apps tool only its view calls (``_meta.ui.visibility`` without ``model``)."""
    icons: tuple[JsonDict, ...]
    """Its ``icons`` as listed (``router.icons`` fetches and checks them)."""
    definition: JsonDict
    """The tool as the server sent it (the Try dialog and the MCP Apps view read it)."""


@dataclass(frozen=True)
class ServerInfo:
    """Who the server says it is (``serverInfo``) and the extensions both sides agreed on."""

    name: str
    version: str
    extensions: tuple[str, ...]
    icons: tuple[JsonDict, ...]

    @property
    def label(self) -> str:
        """``name version``."""
        return f"{self.name} {self.version}".strip()


@dataclass(frozen=True)
class PromptArgument:
    """One argument of a prompt (a string)."""

    name: str
    description: str
    required: bool


@dataclass(frozen=True)
class PromptInfo:
    """One prompt of ``mcp:discover``."""

    name: str
    title: str | None
    description: str
    arguments: tuple[PromptArgument, ...]

    @property
    def label(self) -> str:
        """The title, else the name."""
        return self.title or self.name


@dataclass(frozen=True)
class ResourceInfo:
    """One resource of ``mcp:discover``."""

    name: str
    uri: str
    description: str
    mime_type: str


@dataclass(frozen=True)
class ResourceTemplateInfo:
    """One resource template of ``mcp:discover`` (its URI is an RFC 6570 template)."""

    name: str
    uri_template: str
    description: str
    mime_type: str


@dataclass(frozen=True)
class Discovery:
    """``mcp:discover``: everything a server offers; a kind that could not be listed says why."""

    success: bool
    """False when its tools could not be listed."""
    error: str | None
    server: ServerInfo | None
    tools: tuple[ToolInfo, ...] = ()
    prompts: tuple[PromptInfo, ...] = ()
    resources: tuple[ResourceInfo, ...] = ()
    templates: tuple[ResourceTemplateInfo, ...] = ()
    tools_error: str = ""
    prompts_error: str = ""
    resources_error: str = ""
    """Why resources or templates could not be listed ("" when they could)."""

    def tool(self, name: str) -> ToolInfo | None:
        """The tool ``name``, None when it is not listed."""
        return next((t for t in self.tools if t.name == name), None)


@dataclass(frozen=True)
class PromptMessage:
    """One message of a rendered prompt."""

    role: str
    content: JsonDict
    """Its content block as the server sent it (text, image, audio, resource ...)."""


@dataclass(frozen=True)
class RenderedPrompt:
    """``mcp:get-prompt``: the prompt's messages filled in with the arguments."""

    description: str | None
    messages: tuple[PromptMessage, ...]


@dataclass(frozen=True)
class ResourceContent:
    """One entry of a read resource: text or base64 ``blob``."""

    uri: str
    mime_type: str | None
    text: str | None
    blob: str | None
    meta: JsonDict
    """Its ``_meta`` as sent (an MCP App view's ``ui`` policy is there); empty when none."""

    def as_json(self) -> JsonDict:
        """The entry in the protocol's JSON shape (what the content preview renders)."""
        shown: JsonDict = {"uri": self.uri}
        if self.mime_type is not None:
            shown["mimeType"] = self.mime_type
        if self.text is not None:
            shown["text"] = self.text
        if self.blob is not None:
            shown["blob"] = self.blob
        if self.meta:
            shown["_meta"] = self.meta
        return shown


@dataclass(frozen=True)
class ResourceRead:
    """``mcp:read-resource``: the resource's contents."""

    contents: tuple[ResourceContent, ...]
    payload: JsonDict
    """The result as the server sent it (what an MCP App view that asked for it is answered)."""


@dataclass(frozen=True)
class SkillView:
    """One skill of ``mcp:skills`` with its pin status."""

    uri: str
    """The URI of its ``SKILL.md`` (with the server, the skill's identity)."""
    name: str
    description: str
    status: str
    """``pinned``, ``changed`` or ``new``."""
    held: bool
    """Changed or new since it was accepted: its files are not read until it is accepted."""
    files: tuple[SkillFile, ...] | None
    """Every file with its digest; None for a dynamic skill (nothing can be verified)."""
    findings: tuple[LintFinding, ...]
    """What the lint found in its frontmatter."""

    @property
    def dynamic(self) -> bool:
        """The server publishes no digests for it."""
        return self.files is None


@dataclass(frozen=True)
class ReviewRow:
    """One tool (or the server's instructions) of ``mcp:tool-review`` that waits for review."""

    name: str
    status: str
    """``changed``, ``new`` or ``instructions``."""
    diff: tuple[str, ...]
    """A unified diff of its definition, pinned against now (every line escaped)."""
    findings: tuple[LintFinding, ...]


@dataclass(frozen=True)
class ToolReview:
    """``mcp:tool-review``: the held-back tools of one server and the findings in the pinned ones."""

    server_id: str
    pinned: bool
    """False while the server was never listed (nothing pinned yet)."""
    items: tuple[ReviewRow, ...]
    pinned_findings: tuple[LintFinding, ...]
    """Findings in the tools already pinned (shown at first trust)."""


@dataclass(frozen=True)
class HeldTools:
    """``mcp:held-tools`` for one server: what its card's "Changed tools" banner shows."""

    held: tuple[str, ...]
    """Tools held back since they changed."""
    flagged: tuple[str, ...]
    """Tools the lint flagged when the server was first trusted (not yet looked at)."""
    findings: tuple[LintFinding, ...]
    """What the lint found in the flagged ones."""
