"""Turn the content blocks of a tool result into the one string an agent reads."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def _mime(block: Mapping[str, Any]) -> str:
    return str(block.get("mimeType") or block.get("mime_type") or "unknown type")


def _resource(block: Mapping[str, Any]) -> str:
    resource = block.get("resource")
    if not isinstance(resource, Mapping):
        return "[Resource: unknown]"
    text = resource.get("text")
    if isinstance(text, str):
        return text
    return f"[Resource: {resource.get('uri', 'unknown')}]"


def flatten_block(block: Mapping[str, Any]) -> str:
    """One content block as text: text as is, placeholders for media and resources."""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "image":
        return f"[Image: {_mime(block)}]"
    if kind == "audio":
        return f"[Audio: {_mime(block)}]"
    if kind == "resource":
        return _resource(block)
    if kind == "resource_link":
        return f"[Resource link: {block.get('uri', 'unknown')}]"
    return f"[Unsupported content: {kind}]"


def flatten_content(content: Iterable[Mapping[str, Any]]) -> str:
    """The content blocks of a tool result (JSON shape, ``mimeType``) joined with ``\\n``.

    Text as is; image ``[Image: {mimeType}]``; audio ``[Audio: {mimeType}]``; an embedded
    resource its text or ``[Resource: {uri}]``; a resource link ``[Resource link: {uri}]``.
    """
    return "\n".join(flatten_block(block) for block in content)


def describe_exception(exc: BaseException) -> str:
    """A one-line reason for ``exc``: its message, or its type when it has none (exception groups unwrapped)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def tool_result_text(tool_name: str, is_error: bool, content: Iterable[Mapping[str, Any]]) -> str:
    """What an agent reads for a tool result: the flattened content, marked as an error when it is one."""
    text = flatten_content(content)
    if is_error:
        return f"Error: tool {tool_name} reported an error: {text or 'no details given'}"
    return text
