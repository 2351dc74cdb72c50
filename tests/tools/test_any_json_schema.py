"""Property tests: any JSON value as an input schema converts without raising, to a valid payload,
and the input is never changed; recursive ``$defs`` (issue 13) never lose a top-level parameter
without a note."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from elftia_desktop.tools.convert import Conversion
from elftia_desktop.tools.formats.jsonschema import JsonSchemaCleaner
from elftia_desktop.tools.formats.openai_strict import strip_strict_nulls
from elftia_desktop.tools.loader import FORMATS, convert_tools
from elftia_desktop.tools.notes import NoteLog
from elftia_desktop.tools.schema import deref
from tests.tools.provider_checks import check_all

KEYWORDS = ["type", "properties", "items", "required", "anyOf", "oneOf", "allOf", "$ref", "$defs", "definitions",
            "enum", "const", "format", "additionalProperties", "prefixItems", "minimum", "exclusiveMinimum",
            "nullable", "description", "default", "not", "pattern", "minLength", "maxItems", "title",
            "$schema"]  # fmt: skip
TYPES = st.sampled_from(["string", "number", "integer", "boolean", "object", "array", "null", "bogus"])
REFS = st.sampled_from(["#", "#/$defs/A", "#/definitions/B", "#/properties/x", "#/nope", "http://x/y", "#/$defs/A/x"])
scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | st.text(max_size=5)
keys = st.sampled_from(KEYWORDS) | st.text(max_size=4)


def schemas() -> st.SearchStrategy[Any]:
    leaf = (
        scalars
        | REFS.map(lambda r: {"$ref": r})
        | TYPES.map(lambda t: {"type": t})
        | st.lists(TYPES, max_size=3).map(lambda ts: {"type": ts})
    )
    return st.recursive(
        leaf,
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(keys, inner, max_size=5)
            | st.dictionaries(st.text(max_size=3), inner, max_size=3).map(lambda p: {"type": "object", "properties": p})
            | st.dictionaries(st.sampled_from(["A", "B"]), inner, max_size=2).map(
                lambda d: {"$defs": d, "definitions": d}
            )
        ),
        max_leaves=25,
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=schemas())
def test_any_json_schema_converts_to_an_accepted_payload(schema: Any) -> None:
    tool = {"name": "t", "description": "d", "inputSchema": schema}
    before = copy.deepcopy(tool)
    for fmt in FORMATS:
        for strict in (False, True) if fmt.startswith("openai") else (False,):
            conversion = convert_tools([tool], fmt, strict=strict)
            check_all({fmt: conversion.payload})
    assert tool == before


@given(args=st.dictionaries(st.text(max_size=3), scalars, max_size=4), schema=schemas())
@settings(max_examples=100, deadline=None)
def test_strip_strict_nulls_never_raises(args: dict[str, Any], schema: Any) -> None:
    out = strip_strict_nulls(args, schema)
    assert isinstance(out, dict) and set(out) <= set(args)


NAMES = st.text(alphabet="ab_-$ 1é.", min_size=1, max_size=4)  # Gemini-invalid parameter names too
SELF_REFS = st.sampled_from([
    {"$ref": "#/$defs/A"}, {"type": "array", "items": {"$ref": "#/$defs/A"}},
    {"anyOf": [{"type": "number"}, {"$ref": "#/$defs/B"}]}, {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]},
])  # fmt: skip
ROOTS = st.sampled_from(["ref", "typed ref", "allOf", "nullable", "property", "ref and properties"])


def _root(form: str, defs: dict[str, Any]) -> dict[str, Any]:
    ref = {"$ref": "#/$defs/A"}
    if form == "ref":
        return {**ref, "$defs": defs}
    if form == "typed ref":
        return {"type": "object", **ref, "$defs": defs}
    if form == "allOf":
        return {"allOf": [ref], "description": "root", "$defs": defs}
    if form == "nullable":
        return {"anyOf": [ref, {"type": "null"}], "$defs": defs}
    if form == "ref and properties":
        return {**ref, "properties": {"extra": {"type": "string"}}, "required": ["extra"], "$defs": defs}
    return {"type": "object", "properties": {"root": ref}, "required": ["root"], "$defs": defs}


@st.composite
def recursive_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """A root (a ``$ref`` in one of its forms, or a property) into ``$defs`` that recurse (A -> A, A -> B -> A)."""
    props = draw(st.dictionaries(NAMES, SELF_REFS | schemas(), min_size=1, max_size=4))
    required = [
        name for name, keep in zip(props, draw(st.lists(st.booleans(), min_size=4, max_size=4)), strict=False) if keep
    ]
    b_props = draw(st.dictionaries(NAMES, SELF_REFS, max_size=2)) | {"back": {"$ref": "#/$defs/A"}}
    defs = {"A": {"type": "object", "properties": props, "required": required, "title": "A"},
            "B": {"type": "object", "properties": b_props}}  # fmt: skip
    return _root(draw(ROOTS), defs)


def _declared_properties(schema: Any) -> int:
    """How many top-level properties the input declares: its own and those of the model its root names."""
    if not isinstance(schema, dict):
        return 0
    own = schema.get("properties")
    names = set(own) if isinstance(own, dict) else set()
    refs = [schema]  # a root $ref; allOf of one reference; a nullable reference (anyOf [ref, null])
    for key in ("allOf", "anyOf"):
        branches = (
            [b for b in schema.get(key, []) if b != {"type": "null"}] if isinstance(schema.get(key), list) else []
        )
        refs += branches if len(branches) == 1 else []
    for ref in refs:
        target = (
            deref(schema, {"$ref": ref["$ref"]}) if isinstance(ref, dict) and isinstance(ref.get("$ref"), str) else {}
        )
        props = target.get("properties") if isinstance(target, dict) else None
        names |= set(props) if isinstance(props, dict) else set()
    return len(names)


def _sent_properties(conversion: Conversion) -> int:
    payload = conversion.payload
    if conversion.format.startswith("gemini"):
        key = "parametersJsonSchema" if conversion.format == "gemini-json" else "parameters"
        declaration = payload[0]["functionDeclarations"][0]
        return len((declaration.get(key) or {}).get("properties", {}))
    tool = payload[0]
    schema = tool.get("input_schema") or tool.get("parameters") or tool["function"]["parameters"]
    return len(schema["properties"])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=recursive_schemas() | schemas())
@example(schema={"enum": {"$ref": "#"}})  # data keywords of the wrong kind: the fast path must not keep them
@example(schema={"type": "object", "properties": {"a": {"enum": {"x": 1}}}, "required": [1, "a"]})
@example(schema={"type": "object", "properties": {"a": {"type": "string", "examples": {"x": 1}}}})
def test_recursive_defs_never_lose_a_parameter_without_a_note(schema: Any) -> None:
    """Slow by design (about 40 s with coverage on a loaded 2-core machine): 120 generated schemas, recursive
    ones among them, each converted to every format (OpenAI's strict and not) and checked against each provider."""
    tool = {"name": "t", "description": "d", "inputSchema": schema}
    before = copy.deepcopy(tool)
    declared = _declared_properties(schema)
    for fmt in FORMATS:
        for strict in (False, True) if fmt.startswith("openai") else (False,):
            conversion = convert_tools([tool], fmt, strict=strict)
            check_all({fmt: conversion.payload})
            if _sent_properties(conversion) < declared:
                root_notes = [n for n in conversion.notes if n.path == "" or n.path.startswith("properties.")]
                assert root_notes, (fmt, strict, "fewer top-level properties and no note saying why")
            arguments = conversion.name_map.argument_map("t")
            assert len(set(arguments.renamed.values())) == len(arguments.renamed)
    assert tool == before


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=recursive_schemas())
def test_a_recursive_model_keeps_every_top_level_parameter(schema: dict[str, Any]) -> None:
    declared = _declared_properties(schema)
    for fmt in FORMATS:
        conversion = convert_tools([{"name": "t", "inputSchema": schema}], fmt)
        assert _sent_properties(conversion) == declared, fmt
        assert conversion.name_map.argument_map("t").wrapped is None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=schemas(), array_items=st.booleans())
def test_shared_cleaning_gives_the_copying_result(schema: Any, array_items: bool) -> None:
    """The cleaner's ``share`` mode (OpenAI strict, Gemini's subset) returns the schema the copying
    mode does, with the same notes, and leaves its input as it was."""
    before = copy.deepcopy(schema)
    copying, sharing = NoteLog("t", "openai"), NoteLog("t", "openai")
    copied = JsonSchemaCleaner(copying, array_items=array_items).clean(schema)
    shared = JsonSchemaCleaner(sharing, array_items=array_items, share=True).clean(schema)
    assert json.dumps(shared) == json.dumps(copied)  # the same keys in the same order
    assert sharing.notes == copying.notes
    assert schema == before
