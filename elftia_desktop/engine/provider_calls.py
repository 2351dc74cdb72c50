"""Tool calls in each provider's response, and each provider's tool-result message.

Responses may be the providers' SDK objects (``openai``, ``anthropic``, ``google-genai``) or their
JSON as dicts; both are read the same way. The result messages are plain JSON dicts in the shape
each API documents, ready to append to the conversation.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Provider = Literal["openai", "openai-responses", "anthropic", "gemini"]
PROVIDERS: tuple[Provider, ...] = ("openai", "openai-responses", "anthropic", "gemini")


@dataclass(frozen=True)
class ToolCall:
    """One tool call the model asked for."""

    provider: Provider
    call_id: str
    """The provider's id of the call (Gemini: may be empty, then the name pairs call and result)."""
    name: str
    """The provider tool name (a key of the name map)."""
    arguments: dict[str, Any] = field(default_factory=dict)
    argument_error: str | None = None
    """Why the arguments could not be read (malformed JSON), or None."""


def _get(obj: Any, *keys: str) -> Any:
    """The first of ``keys`` present on ``obj`` (attribute or mapping key), else None."""
    for key in keys:
        value = obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)
        if value is not None:
            return value
    return None


def _items(value: Any) -> list[Any]:
    return list(value) if isinstance(value, Iterable) and not isinstance(value, str | bytes | Mapping) else []


def _parse_arguments(raw: Any) -> tuple[dict[str, Any], str | None]:
    if raw is None or raw == "":
        return {}, None
    if isinstance(raw, Mapping):
        return dict(raw), None
    if not isinstance(raw, str):
        return {}, f"arguments must be a JSON object, got {type(raw).__name__}"
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, f"arguments are not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
    if not isinstance(parsed, dict):
        return {}, f"arguments must be a JSON object, got {type(parsed).__name__}"
    return parsed, None


def _call(provider: Provider, call_id: Any, name: Any, raw: Any) -> ToolCall:
    arguments, error = _parse_arguments(raw)
    return ToolCall(provider, str(call_id or ""), str(name or ""), arguments, error)


def _openai_chat(response: Any) -> list[ToolCall]:
    calls = []
    for choice in _items(_get(response, "choices")):
        message = _get(choice, "message") or {}
        for item in _items(_get(message, "tool_calls")):
            if (_get(item, "type") or "function") != "function":
                continue
            function = _get(item, "function") or {}
            calls.append(_call("openai", _get(item, "id"), _get(function, "name"), _get(function, "arguments")))
    return calls


def _openai_responses(response: Any) -> list[ToolCall]:
    return [
        _call("openai-responses", _get(item, "call_id"), _get(item, "name"), _get(item, "arguments"))
        for item in _items(_get(response, "output"))
        if _get(item, "type") == "function_call"
    ]


def _anthropic(response: Any) -> list[ToolCall]:
    return [
        _call("anthropic", _get(block, "id"), _get(block, "name"), _get(block, "input"))
        for block in _items(_get(response, "content"))
        if _get(block, "type") == "tool_use"
    ]


def _gemini(response: Any) -> list[ToolCall]:
    calls = []
    for candidate in _items(_get(response, "candidates"))[:1]:
        content = _get(candidate, "content") or {}
        for part in _items(_get(content, "parts")):
            function_call = _get(part, "function_call", "functionCall")
            if function_call is not None:
                calls.append(
                    _call("gemini", _get(function_call, "id"), _get(function_call, "name"), _get(function_call, "args"))
                )
    return calls


_EXTRACTORS = {
    "openai": _openai_chat,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
}


def check_provider(provider: str) -> Provider:
    """``provider`` as a :data:`Provider`; ``ValueError`` naming the valid ones otherwise."""
    for known in PROVIDERS:
        if provider == known:
            return known
    raise ValueError(f"unknown provider {provider!r}: expected one of {', '.join(PROVIDERS)}")


def extract_tool_calls(provider: Provider, response: Any) -> list[ToolCall]:
    """The tool calls in a provider's response (OpenAI ``tool_calls`` / Responses ``function_call``
    items, Anthropic ``tool_use`` blocks, Gemini ``functionCall`` parts), in order."""
    return _EXTRACTORS[check_provider(provider)](response)


def tool_result_item(call: ToolCall, text: str, is_error: bool) -> dict[str, Any]:
    """The provider's result for one call.

    OpenAI chat: a ``{"role": "tool", "tool_call_id", "content"}`` message; Responses: a
    ``function_call_output`` item; Anthropic: a ``tool_result`` block; Gemini: a
    ``functionResponse`` part (``{"result": text}`` or ``{"error": text}``).
    """
    if call.provider == "openai":
        return {"role": "tool", "tool_call_id": call.call_id, "content": text}
    if call.provider == "openai-responses":
        return {"type": "function_call_output", "call_id": call.call_id, "output": text}
    if call.provider == "anthropic":
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.call_id, "content": text}
        if is_error:
            block["is_error"] = True
        return block
    response_body = {"error": text} if is_error else {"result": text}
    function_response: dict[str, Any] = {"name": call.name, "response": response_body}
    if call.call_id:
        function_response["id"] = call.call_id
    return {"functionResponse": function_response}


def tool_results_messages(provider: Provider, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What to append to the conversation: OpenAI's messages / items as they are, Anthropic's blocks in
    one ``user`` message, Gemini's parts in one ``user`` content."""
    if not items:
        return []
    if provider == "anthropic":
        return [{"role": "user", "content": items}]
    if provider == "gemini":
        return [{"role": "user", "parts": items}]
    return items
