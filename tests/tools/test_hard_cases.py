"""Hard cases: recursion, unions, nulls, tuples, names, limits and the way back from strict nulls."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from elftia_desktop.core.models import MCPTool
from elftia_desktop.tools.formats.gemini import convert_mcp_tools_to_gemini
from elftia_desktop.tools.formats.openai import convert_mcp_tools_to_openai
from elftia_desktop.tools.formats.openai_strict import strip_strict_nulls
from elftia_desktop.tools.loader import FORMATS, convert_tools
from elftia_desktop.tools.names import ToolRef, assign_names, short_hash
from elftia_desktop.tools.refs import RECURSION_DEPTH
from elftia_desktop.tools.schema import cut_text, process_json_schema
from tests.tools.provider_checks import check_all

DATA = Path(__file__).parent / "data"


def hard_tools() -> dict[str, dict[str, Any]]:
    tools = json.loads((DATA / "pydantic_hard_cases.json").read_text(encoding="utf-8"))["tools"]
    return {t["name"]: t for t in tools}


def gemini_params(tool: dict[str, Any]) -> dict[str, Any]:
    declaration: dict[str, Any] = convert_mcp_tools_to_gemini([tool]).payload[0]["functionDeclarations"][0]
    return declaration["parameters"]


def test_recursive_model_is_cut_for_gemini_and_kept_as_defs_elsewhere() -> None:
    tree = hard_tools()["tree"]
    params = gemini_params(tree)
    node = params["properties"]["root"]
    for _ in range(RECURSION_DEPTH):  # the model inlined RECURSION_DEPTH levels deep, then a stub
        assert node["type"] == "OBJECT" and set(node["properties"]) == {"label", "children"}
        assert node["properties"]["children"]["type"] == "ARRAY"
        node = node["properties"]["children"]["items"]
    assert node["type"] == "STRING" and "further nesting omitted" in node["description"]  # sent JSON-encoded
    schema = convert_tools([tree], "anthropic").payload[0]["input_schema"]
    assert schema["properties"]["root"]["properties"]["children"]["items"] == {"$ref": "#/$defs/TreeNode"}
    assert schema["$defs"]["TreeNode"]["properties"]["children"]["items"] == {"$ref": "#/$defs/TreeNode"}
    strict = convert_tools([tree], "openai", strict=True).payload[0]["function"]
    assert strict["strict"] is True and "TreeNode" in strict["parameters"]["$defs"]


def test_discriminated_union_and_optional_model() -> None:
    pets = hard_tools()["pets"]
    params = gemini_params(pets)
    pet = params["properties"]["pet"]
    assert [b["properties"]["kind"]["enum"] for b in pet["anyOf"]] == [["cat"], ["dog"]]
    assert pet["anyOf"][0]["properties"]["lives"]["maximum"] == 9  # exclusiveMaximum 10 on an integer
    assert params["properties"]["backup"]["nullable"] is True
    assert params["properties"]["backup"]["type"] == "OBJECT"
    assert params["required"] == ["pet", "owner"]


def test_enums_maps_tuples_and_literals_for_gemini() -> None:
    params = gemini_params(hard_tools()["shapes"])
    props = params["properties"]
    assert props["color"] == {"type": "STRING", "description": "A colour.", "title": "Color", "enum": ["red", "green"]}
    assert props["priority"]["type"] == "INTEGER" and "enum" not in props["priority"]
    assert "Allowed values: 1, 2" in props["priority"]["description"]
    assert props["labels"]["type"] == "STRING" and props["labels"]["nullable"] is True  # a map, JSON-encoded
    assert "JSON-encoded" in props["labels"]["description"]
    assert props["point"]["items"]["anyOf"] == [{"type": "INTEGER"}, {"type": "STRING"}]
    assert props["note"] == {"type": "STRING", "title": "Note", "nullable": True}


def test_zod_style_rewrites() -> None:
    tools = json.loads((DATA / "zod_style.json").read_text(encoding="utf-8"))["tools"]
    params = gemini_params(tools[0])
    props = params["properties"]
    assert props["kind"] == {"type": "STRING", "enum": ["issue"]}
    assert props["page"]["minimum"] == 1 and props["flag"] == {"type": "BOOLEAN", "nullable": True}
    assert props["id"]["anyOf"] == [{"type": "STRING"}, {"type": "NUMBER"}]
    assert set(props["merged"]["properties"]) == {"a", "b"} and props["merged"]["required"] == ["a"]
    assert "missing_property" not in params["required"]
    anthropic = convert_tools(tools, "anthropic").payload[0]["input_schema"]
    assert anthropic["properties"]["pair"]["prefixItems"] == [{"type": "string"}, {"type": "number"}]
    root_union = convert_tools(tools, "openai").payload[1]["function"]["parameters"]
    assert root_union["type"] == "object" and root_union["required"] == ["id"]
    no_params = convert_mcp_tools_to_gemini(tools).payload[0]["functionDeclarations"][2]
    assert no_params == {"name": "no_params", "description": "Takes nothing."}


def test_strict_nulls_are_removed_before_the_call() -> None:
    pets = hard_tools()["pets"]
    strict = convert_tools([pets], "openai", strict=True).payload[0]["function"]["parameters"]
    assert strict["required"] == ["pet", "owner", "backup"]
    args = {"pet": {"kind": "dog", "good": None}, "owner": {"street": "Main", "city": None}, "backup": None}
    before = copy.deepcopy(args)
    # good (bool, default True) does not accept null: removed; city and backup accept null: kept
    expected = {"pet": {"kind": "dog"}, "owner": {"street": "Main", "city": None}, "backup": None}
    assert strip_strict_nulls(args, pets["inputSchema"]) == expected
    assert args == before
    # a property that is optional and explicitly nullable keeps an explicit null
    schema = {"type": "object", "properties": {"a": {"type": ["string", "null"]}, "b": {"type": "string"}}}
    assert strip_strict_nulls({"a": None, "b": None}, schema) == {"a": None}


def test_names_dots_spaces_unicode_long_and_collisions() -> None:
    tools = [
        MCPTool(id="mcp__srv__files_read_v2", server_id="s1", server_name="srv", name="files.read v2"),
        MCPTool(id="mcp__srv__files_read_v2", server_id="s1", server_name="srv", name="files_read v2"),
        MCPTool(id="mcp__other__" + "é" * 100, server_id="s2", server_name="other", name="é" * 100),
    ]
    for fmt in FORMATS:
        conversion = convert_tools(tools, fmt)
        check_all({fmt: conversion.payload})
        names = list(conversion.name_map)
        assert len(set(names)) == 3 and all(len(n) <= 64 for n in names)
        assert conversion.name_map[names[0]] == ToolRef("s1", "files.read v2")
        assert conversion.name_map[names[1]] == ToolRef("s1", "files_read v2")
        assert conversion.name_map[names[2]] == ToolRef("s2", "é" * 100)
        assert names[0].endswith(short_hash("s1\x00files.read v2"))
    again = convert_tools(list(reversed(tools)), "openai")
    assert set(again.name_map) == set(convert_tools(tools, "openai").name_map), "names depend on order"


def test_gemini_names_start_with_a_letter_and_keep_dots() -> None:
    refs = [("9lives", ToolRef("", "9lives")), ("a.b:c", ToolRef("", "a.b:c"))]
    assert assign_names(refs, "gemini") == ["_9lives", "a.b:c"]
    assert assign_names(refs, "openai") == ["9lives", "a_b_c"]


def test_openai_limit_warns_and_names_the_tools_left_out() -> None:
    tools = [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(130)]
    conversion = convert_mcp_tools_to_openai(tools)
    assert len(conversion.payload) == 128
    assert set(conversion.skipped) == {"t128", "t129"}
    assert any("t128, t129" in n.detail for n in conversion.warnings)


def test_long_descriptions_are_cut_cleanly() -> None:
    text = "First sentence here. " * 80
    cut = cut_text(text, 1024)
    assert len(cut) <= 1024 and cut.endswith("here.")
    words = "word " * 400
    assert cut_text(words, 1024).endswith("word…")
    tool = {"name": "t", "description": text, "inputSchema": {}}
    for fmt, strict in (("openai", False), ("openai-responses", False), ("openai-responses", True)):
        conversion = convert_tools([tool], fmt, strict=strict)
        function = conversion.payload[0] if fmt == "openai-responses" else conversion.payload[0]["function"]
        head, params = function["description"], function["parameters"]
        assert len(head) <= 1024 and head.endswith("here. (continued in the parameters' description)")
        rest = params["description"].removeprefix("(Tool description, continued:) ")
        assert head.removesuffix(" (continued in the parameters' description)") + " " + rest == text.strip()
        assert [n.path for n in conversion.notes if n.action == "changed"][:1] == ["description"]
    for fmt in ("anthropic", "gemini", "gemini-json"):  # no limit documented: sent whole
        payload = convert_tools([tool], fmt).payload
        sent = payload[0]["description"] if fmt == "anthropic" else payload[0]["functionDeclarations"][0]["description"]
        assert sent == text


def test_process_json_schema_like_the_original() -> None:
    assert process_json_schema(None) == {"type": "object", "properties": {}}
    assert process_json_schema({}) == {"type": "object", "properties": {}}
    assert process_json_schema({"type": "object", "properties": {"a": {}}, "required": ["a"], "title": "x"}) == {
        "type": "object",
        "properties": {"a": {}},
        "required": ["a"],
    }
    wrapped = process_json_schema({"type": "string"})
    assert wrapped == {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}


def test_a_strict_fallback_sends_a_tree_of_its_own_with_the_cleaning_noted_once() -> None:
    props = {f"p{i}": {"type": "string"} for i in range(5001)}  # over strict mode's 5000 properties
    props["p0"] = {"type": "string", "minLength": -1}  # an invalid value, dropped by the cleaning
    tool = {"name": "wide", "description": "d", "inputSchema": {"type": "object", "properties": props}}
    before = copy.deepcopy(tool)
    conversion = convert_mcp_tools_to_openai([tool], strict=True)
    function = conversion.payload[0]["function"]
    assert function["strict"] is False
    assert [n.action for n in conversion.notes] == ["dropped", "fallback"]  # the strict attempt left no note
    function["parameters"]["properties"]["p1"]["type"] = "number"
    assert tool == before, "the payload shares a subschema with the input"
