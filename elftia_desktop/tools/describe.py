"""Keywords a provider does not take, said in words in the schema's description instead.

A pass that cannot send a keyword (``default`` in OpenAI strict mode, ``minLength`` in Gemini's
``parametersJsonSchema`` subset ...) moves it into the description of the same schema, so that the
model still reads the rule, and writes a ``changed`` note naming the keyword. Nothing is lost
silently: long values are shortened with ``…`` and the note says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from json.encoder import encode_basestring
from typing import Any

from elftia_desktop.tools.arguments import MapRecorder, Where
from elftia_desktop.tools.notes import NoteLog, join_path

MAX_VALUE_TEXT = 200
"""A described value longer than this (as JSON) is cut, with ``…``."""

_PHRASES = {
    "default": "Default: {}.",
    "const": "Must be {}.",
    "minLength": "At least {} characters.",
    "maxLength": "At most {} characters.",
    "pattern": "Must match the regular expression {}.",
    "format": "Format: {}.",
    "minimum": "Minimum {}.",
    "maximum": "Maximum {}.",
    "exclusiveMinimum": "Greater than {}.",
    "exclusiveMaximum": "Less than {}.",
    "multipleOf": "A multiple of {}.",
    "minItems": "At least {} items.",
    "maxItems": "At most {} items.",
    "uniqueItems": "Items must be unique: {}.",
    "minProperties": "At least {} properties.",
    "maxProperties": "At most {} properties.",
    "examples": "Examples: {}.",
    "enum": "One of: {}.",
    "propertyNames": "Property names must match: {}.",
    "deprecated": "Deprecated: {}.",
}


_SENTENCE_ENDS = frozenset(".!?:;)]\"'…")
"""A description ending in one of these needs no full stop before a note is added."""
_COUNTED = {"minLength": "character", "maxLength": "character", "minItems": "item", "maxItems": "item",
            "minProperties": "property", "maxProperties": "property"}  # fmt: skip
"""Keywords said with a count of things: one thing is singular."""


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))
"""One encoder for every value: ``json.dumps`` with options builds a new one per call."""


def value_text(value: Any) -> str:
    """``value`` as compact JSON, cut to :data:`MAX_VALUE_TEXT` characters."""
    kind = type(value)
    if kind is str:  # the common values, written as the encoder writes them without its per-call setup
        text = encode_basestring(value)
    elif kind is int:
        text = int.__repr__(value)
    elif kind is bool:
        text = "true" if value else "false"
    elif value is None:
        text = "null"
    else:
        try:
            text = _ENCODER.encode(value)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= MAX_VALUE_TEXT else text[: MAX_VALUE_TEXT - 1] + "…"


def keyword_text(key: str, value: Any) -> str:
    """One keyword said in words (``minLength`` 3 -> ``At least 3 characters.``)."""
    shown = value if key in ("pattern", "format") and isinstance(value, str) else value_text(value)
    if key in _COUNTED and value == 1 and not isinstance(value, bool):
        return f"{'At least' if key.startswith('min') else 'At most'} 1 {_COUNTED[key]}."
    phrase = _PHRASES.get(key)
    return phrase.format(shown) if phrase else f"{key}: {shown}."


def describe(out: dict[str, Any], node: dict[str, Any], keys: Iterable[str], log: NoteLog, path: str, why: str) -> None:
    """Move each of ``keys`` that ``node`` has into ``out["description"]``, with one note each."""
    texts = []
    detail = f"described in the description ({why})"
    for key in keys:
        if key not in node:
            continue
        texts.append(keyword_text(key, node[key]))
        log.add(join_path(path, key), "changed", detail)
    if texts:
        add_description(out, " ".join(texts))


def add_description(out: dict[str, Any], text: str) -> None:
    """Append ``text`` to ``out["description"]`` (created when missing)."""
    before = out.get("description")
    if not isinstance(before, str) or not before.strip():
        out["description"] = text
        return
    before = before.rstrip()
    out["description"] = f"{before} {text}" if before[-1] in _SENTENCE_ENDS else f"{before}. {text}"


def encoded_text(schema: dict[str, Any]) -> str:
    """What the description says of a value sent JSON-encoded, with the schema it must follow."""
    rest = {k: v for k, v in schema.items() if k not in ("title", "description", "nullable")}
    if rest.get("properties") == {}:
        del rest["properties"]
    if rest.get("additionalProperties") in ({}, True):
        del rest["additionalProperties"]
    if not rest:
        return "Send any JSON value, JSON-encoded as a string (decoded before the call)."
    if rest == {"type": "object"}:
        return "Send a JSON object, JSON-encoded as a string (decoded before the call)."
    return f"Send a JSON-encoded value (decoded before the call); its schema: {value_text(rest)}."


def with_extra_carrier(
    props: dict[str, Any], node: dict[str, Any], path: str, at: Where, maps: MapRecorder, log: NoteLog
) -> dict[str, Any]:
    """``props`` plus one optional string property that carries the object's other keys, JSON-encoded.

    For an object with declared properties that allows others (``additionalProperties``,
    ``patternProperties``) where only declared properties can be sent; the argument map merges
    the carried keys back in.
    """
    name, n = "additional_properties", 2
    while name in props:
        name, n = f"additional_properties_{n}", n + 1
    rule = {k: node[k] for k in ("additionalProperties", "patternProperties") if node.get(k) not in (None, False)}
    shown = (
        ""
        if rule.get("additionalProperties") in ({}, True) and len(rule) == 1
        else f" Their schema: {value_text(rule)}."
    )
    carrier = {"type": "string", "description": "Further properties beyond the declared ones, as a JSON-encoded object "
               f"(merged in before the call).{shown}"}  # fmt: skip
    maps.extra(at, name)
    log.add(join_path(path, "additionalProperties"), "changed", f"only declared properties can be sent: the others go "
            f"JSON-encoded in the added property {name!r} and are merged back before the call")  # fmt: skip
    return {**props, name: carrier}
