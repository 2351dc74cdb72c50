"""What used to be lost is now kept: strict mode without fallbacks, Gemini without bare objects or
unrenamed nested names, ``parametersJsonSchema`` inside Gemini's documented subset; each change mapped back."""

from __future__ import annotations

import json
from typing import Any

import pytest

from elftia_desktop.tools.arguments import ArgumentError
from elftia_desktop.tools.loader import convert_tools
from tests.tools.provider_checks import check_all, check_strict

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pipeline": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"$match": {"type": "object"}, "$limit": {"type": "integer", "exclusiveMinimum": 0}},
            },
        },
        "options": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Extra options."},
        "name": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$", "default": "abc", "format": "hostname"},
        "anything": {"description": "Any JSON value."},
        "kind": {"const": "find"},
    },
    "required": ["pipeline", "kind"],
}
TOOL = {"name": "aggregate", "description": "Run a pipeline.", "inputSchema": SCHEMA}
ARGUMENTS = {"pipeline": [{"$match": {"a": {"$gt": 1}}, "$limit": 5}], "options": {"k": "v"}, "anything": [1, "x"]}


def params_of(fmt: str, strict: bool = False) -> tuple[dict[str, Any], Any]:
    conversion = convert_tools([TOOL], fmt, strict=strict)
    check_all({fmt: conversion.payload})
    if fmt.startswith("gemini"):
        declaration = conversion.payload[0]["functionDeclarations"][0]
        return declaration["parametersJsonSchema" if fmt == "gemini-json" else "parameters"], conversion
    function = conversion.payload[0] if fmt == "openai-responses" else conversion.payload[0]["function"]
    return function, conversion


def test_gemini_renames_nested_names_and_sends_free_form_objects_json_encoded() -> None:
    params, conversion = params_of("gemini")
    item = params["properties"]["pipeline"]["items"]
    assert set(item["properties"]) == {"_match", "_limit"} and item["properties"]["_limit"]["minimum"] == 1
    assert (
        item["properties"]["_match"]["type"] == "STRING"
        and "JSON-encoded" in item["properties"]["_match"]["description"]
    )
    assert params["properties"]["options"]["type"] == "STRING"
    assert "Extra options." in params["properties"]["options"]["description"]
    sent = {"pipeline": [{"_match": '{"a": {"$gt": 1}}', "_limit": 5}], "options": '{"k": "v"}', "anything": '[1, "x"]'}
    assert conversion.name_map.restore_arguments("aggregate", sent) == ARGUMENTS
    renames = [n.path for n in conversion.notes if n.action == "renamed"]
    assert renames == ["properties.pipeline.items.properties.$match", "properties.pipeline.items.properties.$limit"]
    with pytest.raises(ArgumentError, match=r"arguments.pipeline\[0\].\$match must be a JSON-encoded value"):
        conversion.name_map.restore_arguments("aggregate", {"pipeline": [{"_match": "{not json"}]})


def test_gemini_json_keeps_names_and_describes_what_is_outside_the_subset() -> None:
    params, conversion = params_of("gemini-json")
    assert set(params["properties"]["pipeline"]["items"]["properties"]) == {"$match", "$limit"}
    assert params["properties"]["pipeline"]["items"]["properties"]["$limit"] == {"type": "integer", "minimum": 1}
    name = params["properties"]["name"]
    assert set(name) == {"type", "description"}
    for text in ('Default: "abc".', "At least 2 characters.", "regular expression ^[a-z]+$", "Format: hostname."):
        assert text in name["description"]
    assert params["properties"]["kind"] == {"enum": ["find"]}
    assert not conversion.name_map.argument_map("aggregate")  # nothing to map back
    assert not any(n.action == "dropped" for n in conversion.notes)


@pytest.mark.parametrize("fmt", ["openai", "openai-responses"])
def test_strict_without_fallback_and_every_change_mapped_back(fmt: str) -> None:
    function, conversion = params_of(fmt, strict=True)
    params = function["parameters"]
    assert function["strict"] is True and not [n for n in conversion.notes if n.action == "fallback"]
    check_strict(params, params)
    assert "default" not in json.dumps(params).replace("Default", "")
    name = params["properties"]["name"]
    assert name["anyOf"][0] == {"type": "string", "pattern": "^[a-z]+$", "format": "hostname"}
    assert name["description"] == 'At least 2 characters. Default: "abc".' and name["anyOf"][1] == {"type": "null"}
    sent = {"pipeline": [{"$match": '{"a": {"$gt": 1}}', "$limit": 5}], "options": '{"k": "v"}', "name": None,
            "anything": '[1, "x"]', "kind": "find"}  # fmt: skip
    assert conversion.name_map.restore_arguments("aggregate", sent) == {**ARGUMENTS, "kind": "find"}


def test_a_root_map_is_wrapped_json_encoded_and_unwrapped() -> None:
    tool = {"name": "set_env", "inputSchema": {"type": "object", "additionalProperties": {"type": "string"}}}
    for fmt, strict in (("gemini", False), ("openai", True)):
        conversion = convert_tools([tool], fmt, strict=strict)
        check_all({fmt: conversion.payload})
        assert conversion.name_map.restore_arguments("set_env", {"value": '{"A": "1"}'}) == {"A": "1"}


def test_further_properties_travel_in_a_carrier_where_only_declared_ones_can_be_sent() -> None:
    schema = {"type": "object", "properties": {"parent": {"type": "object", "properties": {"id": {"type": "string"}},
              "required": ["id"], "additionalProperties": True}}, "required": ["parent"]}  # fmt: skip
    tool = {"name": "post_page", "inputSchema": schema}
    for fmt, strict in (("openai", True), ("gemini", False)):
        conversion = convert_tools([tool], fmt, strict=strict)
        check_all({fmt: conversion.payload})
        assert not [n for n in conversion.notes if n.action == "dropped"]
        sent = {"parent": {"id": "p1", "additional_properties": '{"type": "page_id", "id": "ignored"}'}}
        restored = conversion.name_map.restore_arguments("post_page", sent)
        assert restored == {"parent": {"type": "page_id", "id": "p1"}}  # the declared property wins
        assert conversion.name_map.restore_arguments("post_page", {"parent": {"id": "p1"}}) == {"parent": {"id": "p1"}}
        with pytest.raises(ArgumentError, match="must be a JSON-encoded object of further properties"):
            conversion.name_map.restore_arguments("post_page", {"parent": {"id": "p", "additional_properties": "[1]"}})
