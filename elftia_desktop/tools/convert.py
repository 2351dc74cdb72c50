"""The conversion driver shared by every provider format: tool sources, names, results.

A converter takes MCP tools (``MCPTool`` records, or raw ``tools/list`` dicts) and returns a
:class:`Conversion`: the payload to send, the :class:`NameMap` back to (server, tool), what was
left out, and the notes of every change made. Converters are pure: the input is never changed.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from elftia_desktop.core.apps import APP_ONLY, tool_is_app_only
from elftia_desktop.core.models import MCPTool
from elftia_desktop.tools.arguments import ArgumentMap
from elftia_desktop.tools.names import MAX_NAME_LENGTH, NameMap, NameRule, ToolRef, assign_names, sanitize_name
from elftia_desktop.tools.notes import Note, NoteLog
from elftia_desktop.tools.refs import Placeholder, RefInliner
from elftia_desktop.tools.schema import has_ref, root_object, root_ref

ToolInput = MCPTool | Mapping[str, Any]
APP_ONLY_REASON = f"{APP_ONLY}: MCP Apps' _meta.ui.visibility leaves out the model (only an app may call it)"


class ToolSource(NamedTuple):
    """One tool as the converters see it (immutable; a named tuple is built faster than a frozen dataclass)."""

    name: str
    """The preferred provider name: ``MCPTool.id`` (``mcp__server__tool``), or a raw tool's name."""
    ref: ToolRef
    description: str
    input_schema: Any


@dataclass
class Conversion:
    """The result of converting tools to one provider format."""

    format: str
    payload: list[dict[str, Any]]
    name_map: NameMap
    notes: list[Note] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    """Provider-side tool name (``mcp__server__tool``, unique) -> why it was left out of the payload."""

    @property
    def warnings(self) -> list[Note]:
        """Notes a user must see: fallbacks, tools left out."""
        return [n for n in self.notes if n.action in ("fallback", "skipped", "warning")]

    def to_json(self) -> dict[str, Any]:
        """``{"payload", "nameMap", "argumentMap", "skipped", "notes"}`` (``elftia-mcp convert --json``).

        ``argumentMap`` lists the tools whose arguments must be mapped back before the MCP call
        (renamed parameters, a wrapped input): see :class:`~elftia_desktop.tools.arguments.ArgumentMap`.
        """
        return {
            "payload": self.payload,
            "nameMap": self.name_map.to_json(),
            "argumentMap": self.name_map.arguments_json(),
            "skipped": dict(self.skipped),
            "notes": [str(n) for n in self.notes],
        }


def tool_source(tool: ToolInput) -> ToolSource:
    """A :class:`ToolSource` from an ``MCPTool`` or a raw MCP tool dict (any shape, never raises)."""
    if isinstance(tool, MCPTool):
        ref = ToolRef(tool.server_id, tool.name)
        return ToolSource(tool.id, ref, tool.description or "", tool.input_schema)
    name = tool.get("name")
    name = name if isinstance(name, str) else ("" if name is None else str(name))
    server = tool.get("serverId")
    description = tool.get("description")
    ref = ToolRef(server if isinstance(server, str) else "", name)
    schema = tool.get("inputSchema", tool.get("input_schema"))
    return ToolSource(name, ref, description if isinstance(description, str) else "", schema)


def prepare_schema(
    schema: Any, log: NoteLog, placeholder: Placeholder | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The root object schema with references inlined, and the ``$defs`` kept for recursion."""
    return inline_refs(root_object(schema, log), schema, log, placeholder)


def without_defs(root: dict[str, Any]) -> dict[str, Any]:
    """``root`` without its ``$defs``/``definitions`` (itself when it has none)."""
    if "$defs" in root or "definitions" in root:
        return {k: v for k, v in root.items() if k not in ("$defs", "definitions")}
    return root


def inline_refs(
    root: dict[str, Any], schema: Any, log: NoteLog, placeholder: Placeholder | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """:func:`prepare_schema` after :func:`root_object` (``root``, of the input ``schema``)."""
    body = without_defs(root)
    if not has_ref(body):  # shares subtrees with the input: the provider passes build new trees
        return body, {}  # nothing refers to the definitions (a resolved root $ref), if any: they are not sent
    inliner = RefInliner(root, log, placeholder, within=root_ref(schema))
    out = inliner.run(root)
    return out, inliner.defs


OneTool = Callable[[ToolSource, str, NoteLog], dict[str, Any]]


@contextmanager
def collection_paused() -> Iterator[None]:
    """Python's automatic garbage collection paused for the block (left off if it was off).

    A conversion builds a few hundred thousand dicts, lists and notes and no reference cycles;
    a collection every 700 of them scans the growing result again and again (a tenth of the
    time of a thousand tools). What the block leaves alive is collected once afterwards.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@collection_paused()
def convert_all(
    tools: Sequence[ToolInput], fmt: str, rule: NameRule, one: OneTool, *, limit: int | None = None
) -> Conversion:
    """Convert each tool with ``one``; names per ``rule``; tools past ``limit`` are left out.

    MCP Apps' app-only tools are left out too (a model must never be given one). ``skipped`` is
    keyed by each left-out tool's unique provider-side name (``mcp__server__tool``), so tools of
    two servers that share a name are both counted.
    """
    conversion = Conversion(fmt, [], NameMap())
    sources = []
    for tool in tools:
        source = tool_source(tool)
        if tool_is_app_only(tool):
            conversion.skipped[source.name] = APP_ONLY_REASON
        else:
            sources.append(source)
    names = assign_names(((s.name, s.ref) for s in sources), rule)
    entries: dict[str, ToolRef] = {}
    arguments: dict[str, ArgumentMap] = {}
    over: list[str] = []
    for index, (source, name) in enumerate(zip(sources, names, strict=True)):
        if limit is not None and index >= limit:
            conversion.skipped[name] = f"over the limit of {limit} tools per request"
            over.append(name)
            continue
        log = NoteLog(source.ref.tool_name, fmt)
        if name != source.name:
            log.add("name", "renamed", f"{source.name!r} -> {name!r} ({_rename_reason(source.name, name, rule)})")
        conversion.payload.append(one(source, name, log))
        conversion.notes.extend(log.notes)
        entries[name] = source.ref
        if log.arguments is not None and log.arguments.prune() is not None:
            arguments[name] = log.arguments
    conversion.name_map = NameMap(entries, arguments)
    if over:
        detail = f"{fmt} accepts at most {limit} tools per request; {len(over)} left out: {', '.join(over)}"
        conversion.notes.append(Note("", fmt, "", "skipped", detail))
    return conversion


def _rename_reason(original: str, name: str, rule: NameRule) -> str:
    clean = sanitize_name(original, rule)
    if name == clean:
        return "characters the API does not allow replaced"
    if len(clean) > MAX_NAME_LENGTH:
        return f"longer than {MAX_NAME_LENGTH} characters: cut, with a hash of the tool's identity"
    return "collides with another tool's name: a hash of the tool's identity added"
