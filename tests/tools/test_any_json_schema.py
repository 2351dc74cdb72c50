"""Property test: any JSON value as an input schema converts without raising, to a valid payload,
and the input is never changed."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elftia_desktop.tools.formats.openai_strict import strip_strict_nulls
from elftia_desktop.tools.loader import FORMATS, convert_tools
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
