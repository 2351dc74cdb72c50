"""Issue 13: a tool whose input schema is one recursive pydantic model, in every format; Gemini parameter names.

The tools come from a real low-level MCP server (``tests/servers/recursive.py``, in memory through the
``memory_servers`` seam), and also as pydantic's bare ``model_json_schema()`` (no root ``type``) the
way a saved tool list holds them. Every payload is checked with the providers' SDK types and Draft 2020-12.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from elftia_desktop.cli import main
from elftia_desktop.connections.service import McpService
from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpServerInput, MCPTool
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.tools.arguments import NULL_TEXT
from elftia_desktop.tools.convert import Conversion, ToolInput
from elftia_desktop.tools.loader import convert_tools
from elftia_desktop.tools.refs import RECURSION_DEPTH
from tests.servers.recursive import TOOLS, Expr, Tree, Upload
from tests.tools.provider_checks import check_all

pytestmark = pytest.mark.usefixtures("memory_servers")

SERVER = Path(__file__).parents[1] / "servers" / "recursive.py"
FORMS = [("openai", False), ("openai", True), ("openai-responses", False), ("openai-responses", True),
         ("anthropic", False), ("gemini", False), ("gemini-json", False)]  # fmt: skip
MODELS: dict[str, type[BaseModel]] = {"tree": Tree, "evaluate": Expr, "upload": Upload}


def add_recursive_server() -> str:
    """The recursive test server in the catalog (stdio); its id."""
    catalog = ServerCatalog(ConfigStore(), SecretVault())
    server = McpServerInput(
        name="recursive", type="stdio", config={"command": sys.executable, "args": [str(SERVER)]}, is_trusted=True
    )
    record = catalog.add(server)
    assert record is not None
    return record.id


def live_tools() -> list[MCPTool]:
    """The server's tools as the app lists them (over stdio, through McpService)."""
    server_id = add_recursive_server()

    async def body() -> list[MCPTool]:
        service = McpService(ServerCatalog(ConfigStore(), SecretVault()))
        try:
            return await asyncio.wait_for(service.list_server_tools(server_id), 60)
        finally:
            await service.cleanup()

    return asyncio.run(body())


def declared(model: type[BaseModel]) -> tuple[set[str], set[str]]:
    """The parameter names a model declares (by alias), and the required ones."""
    names = {field.alias or name for name, field in model.model_fields.items()}
    required = {field.alias or name for name, field in model.model_fields.items() if field.is_required()}
    return names, required


def top_level(conversion: Conversion) -> dict[str, dict[str, Any]]:
    """Provider tool name -> its top-level parameters schema, for every format."""
    out: dict[str, dict[str, Any]] = {}
    if conversion.format.startswith("gemini"):
        key = "parametersJsonSchema" if conversion.format == "gemini-json" else "parameters"
        for declaration in conversion.payload[0]["functionDeclarations"]:
            out[declaration["name"]] = declaration.get(key) or {"properties": {}}
    for tool in conversion.payload if not conversion.format.startswith("gemini") else []:
        if conversion.format == "anthropic":
            out[tool["name"]] = tool["input_schema"]
        else:
            function = tool if conversion.format == "openai-responses" else tool["function"]
            out[function["name"]] = function["parameters"]
    return out


def check_every_parameter_at_the_top(tools: list[ToolInput], fmt: str, strict: bool) -> Conversion:
    """Convert, validate, and check that each model's parameters (mapped back) and required-ness arrive."""
    conversion = convert_tools(tools, fmt, strict=strict)
    check_all({fmt: conversion.payload})
    params = top_level(conversion)
    for name, ref in conversion.name_map.items():
        arguments = conversion.name_map.argument_map(name)
        assert arguments.wrapped is None, (fmt, name)
        names, required = declared(MODELS[ref.tool_name])
        schema = params[name]
        assert {arguments.renamed.get(p, p) for p in schema["properties"]} == names, (fmt, name)
        sent_required = {arguments.renamed.get(r, r) for r in schema.get("required", [])}
        assert required <= sent_required, (fmt, name, required - sent_required)
        if not (strict and fmt.startswith("openai")):
            assert sent_required == required, (fmt, name)
    return conversion


def test_live_recursive_tools_keep_their_parameters_in_every_format() -> None:
    tools = live_tools()
    assert {t.name for t in tools} == set(TOOLS)
    assert all(t.input_schema["type"] == "object" and "$ref" in t.input_schema for t in tools if t.name != "upload")
    for fmt, strict in FORMS:
        conversion = check_every_parameter_at_the_top(list(tools), fmt, strict)
        if strict:  # the recursive models are strict (their $defs kept); upload's free-form map JSON-encoded
            functions = {
                f["name"]: f for f in (t if fmt == "openai-responses" else t["function"] for t in conversion.payload)
            }
            assert all(f["strict"] for f in functions.values())
            meta = functions["mcp__recursive__upload"]["parameters"]["properties"]["$meta"]
            assert meta["anyOf"][0]["type"] == "string" and meta["anyOf"][1] == {"type": "null"}
            restored = conversion.name_map.restore_arguments(
                "mcp__recursive__upload", {"file-path": "/a", "2fa code": None, "$meta": '{"k": "v"}'}
            )
            assert restored == {"file-path": "/a", "$meta": {"k": "v"}}  # null: omitted (issue 37)
            restored = conversion.name_map.restore_arguments(
                "mcp__recursive__upload", {"file-path": "/a", "2fa code": NULL_TEXT, "$meta": None}
            )
            assert restored == {"file-path": "/a", "2fa code": None}  # the server allows null: sent as the text
        notes = [str(n) for n in conversion.notes]
        assert not any("wrapped as the property" in n for n in notes), notes
        assert any("root reference '#/$defs/Tree' resolved to the object it names" in n for n in notes)


def test_bare_model_json_schema_and_root_all_of() -> None:
    """pydantic's output as it is (no root ``type``), and ``allOf`` of one ``$ref`` with its own description."""
    tools: list[ToolInput] = [{"name": name, "inputSchema": schema} for name, (_, schema, _) in TOOLS.items()]
    schema = Tree.model_json_schema()
    wrapped_ref = {
        "allOf": [{"$ref": "#/$defs/Tree"}],
        "description": "The root's own words.",
        "$defs": schema["$defs"],
    }
    for fmt, strict in FORMS:
        check_every_parameter_at_the_top(tools, fmt, strict)
        conversion = convert_tools([{"name": "tree", "inputSchema": wrapped_ref}], fmt, strict=strict)
        check_all({fmt: conversion.payload})
        [params] = top_level(conversion).values()
        assert set(params["properties"]) == {"name", "size", "children"}
        assert params.get("description") == "The root's own words."
    assert tools == [{"name": name, "inputSchema": schema} for name, (_, schema, _) in TOOLS.items()], "input changed"


def test_recursion_is_kept_where_references_are_allowed() -> None:
    tools = [
        {"name": "tree", "inputSchema": TOOLS["tree"][1]},
        {"name": "evaluate", "inputSchema": TOOLS["evaluate"][1]},
    ]
    for fmt, strict in (("anthropic", False), ("gemini-json", False), ("openai", True), ("openai-responses", False)):
        tree, expr = top_level(convert_tools(tools, fmt, strict=strict)).values()
        children = tree["properties"]["children"]
        items = children["items"] if "items" in children else children["anyOf"][0]["items"]  # strict: nullable
        assert items == {"$ref": "#/$defs/Tree"}
        assert set(tree["$defs"]["Tree"]["properties"]) == {"name", "size", "children"}
        assert {"$ref": "#/$defs/Expr"} in expr["properties"]["left"]["anyOf"]


def test_gemini_parameters_inline_recursion_to_a_bounded_depth_and_say_so() -> None:
    conversion = convert_tools([{"name": "tree", "inputSchema": TOOLS["tree"][1]}], "gemini")
    [params] = top_level(conversion).values()
    node = params
    for _ in range(RECURSION_DEPTH):
        assert set(node["properties"]) == {"name", "size", "children"} and node["required"] == ["name"]
        node = node["properties"]["children"]["items"]
    assert node["type"] == "STRING" and "further nesting omitted" in node["description"]  # JSON-encoded below
    deep = {"name": "a", "children": [{"name": "b", "children": [{"name": "c", "children": ['{"name": "d"}']}]}]}
    restored = conversion.name_map.restore_arguments("tree", {"root": deep} if "root" in params["properties"] else deep)
    assert json.dumps(restored).count('"name": "d"') == 1 and "children" in json.dumps(restored)
    path = ".".join(["properties.children.items"] * RECURSION_DEPTH)
    [cut] = [n for n in conversion.notes if n.action == "cut"]
    assert cut.path == path and f"inlined {RECURSION_DEPTH} levels deep" in cut.detail
    assert f"level {RECURSION_DEPTH + 1} is sent as a JSON-encoded string (decoded before the call)" in cut.detail
    expr = convert_tools([{"name": "evaluate", "inputSchema": TOOLS["evaluate"][1]}], "gemini")
    [cut] = [n for n in expr.notes if n.action == "cut"]
    assert "and at 7 other places" in cut.detail  # left and right at each of 3 levels: 2**3 cuts, one note


def test_gemini_parameter_names_are_renamed_and_mapped_back() -> None:
    tool = {"name": "upload", "inputSchema": TOOLS["upload"][1]}
    for fmt in ("gemini",):
        conversion = convert_tools([tool], fmt)
        [params] = top_level(conversion).values()
        assert list(params["properties"]) == ["file_path", "_2fa_code", "_meta"] and params["required"] == ["file_path"]
        arguments = conversion.name_map.argument_map("upload")
        assert arguments.renamed == {"file_path": "file-path", "_2fa_code": "2fa code", "_meta": "$meta"}
        assert conversion.to_json()["argumentMap"] == {"upload": arguments.to_json()}
        restored = conversion.name_map.restore_arguments("upload", {"file_path": "/a", "_2fa_code": "12"})
        assert restored == {"file-path": "/a", "2fa code": "12"}
        renames = [n for n in conversion.notes if n.action == "renamed"]
        assert [n.path for n in renames] == ["properties.file-path", "properties.2fa code", "properties.$meta"]
    for fmt in ("openai", "anthropic", "gemini-json"):  # names are fine there: sent as they are
        assert not convert_tools([tool], fmt).name_map.argument_map("upload")


def test_tools_lint_says_what_was_lost_and_why(capsys: pytest.CaptureFixture[str]) -> None:
    add_recursive_server()
    assert main(["tools", "--server", "recursive", "--format", "gemini", "--lint"]) == 0
    out = capsys.readouterr().out
    assert "root reference '#/$defs/Tree' resolved to the object it names" in out
    assert f"recursive reference '#/$defs/Expr' inlined {RECURSION_DEPTH} levels deep" in out
    assert "parameter '2fa code' sent as '_2fa_code'" in out and "mapped back to '2fa code'" in out
    assert "wrapped as the property" not in out
    assert "lose something (dropped, cut, fallback, skipped, warning); arguments mapped back for 3 tools\n" in out
    assert main(["tools", "--server", "recursive", "--format", "gemini", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["argumentMap"]["mcp__recursive__upload"]["renamed"]["file_path"] == "file-path"


def test_a_schema_that_is_not_an_object_is_wrapped_and_unwrapped() -> None:
    from pydantic import TypeAdapter

    either = TypeAdapter(Tree | str).json_schema()  # anyOf [Tree, string]: really not an object
    conversion = convert_tools([{"name": "either", "inputSchema": either}], "anthropic")
    check_all({"anthropic": conversion.payload})
    assert conversion.name_map.argument_map("either").wrapped == "value"
    assert conversion.name_map.restore_arguments("either", {"value": {"name": "a"}}) == {"name": "a"}
    [note] = [n for n in conversion.notes if "wrapped" in n.detail]
    assert "unwrapped again before the call reaches the server" in note.detail
    never = convert_tools([{"name": "n", "inputSchema": {"type": "array", "items": {"type": "string"}}}], "openai")
    assert any(n.action == "warning" and "no call can reach the server" in n.detail for n in never.notes)
    with pytest.raises(ValueError, match="MCP can only pass an object of arguments"):
        never.name_map.restore_arguments("n", {"value": ["a"]})


def test_an_unresolvable_root_reference_is_named() -> None:
    for schema in ({"type": "object", "$ref": "#/$defs/Missing"}, {"type": "object", "properties": ["a"]}):
        conversion = convert_tools([{"name": "broken", "inputSchema": schema}], "anthropic")
        check_all({"anthropic": conversion.payload})
        [note] = [n for n in conversion.notes if n.action == "dropped"]
        assert "'#/$defs/Missing' cannot be resolved" in note.detail or "sent without parameters" in note.detail


def test_a_typed_root_union_of_models_keeps_their_parameters() -> None:
    """``{"type": "object", "anyOf": [{"$ref": ...}, {"$ref": ...}, {"type": "null"}]}``: what SDK servers send."""
    from pydantic import TypeAdapter

    union = {"type": "object", **TypeAdapter(Tree | Expr | None).json_schema()}
    for fmt, strict in FORMS:
        conversion = convert_tools([{"name": "either", "inputSchema": union}], fmt, strict=strict)
        check_all({fmt: conversion.payload})
        [params] = top_level(conversion).values()
        assert set(params["properties"]) == {"name", "size", "children", "op", "left", "right"}
        arguments = conversion.name_map.argument_map("either")
        assert arguments.wrapped is None and not arguments.renamed and not arguments.json_encoded
        assert strict or fmt == "gemini" or not arguments  # strict nulls, Gemini's recursion cut JSON-encoded
        details = " | ".join(n.detail for n in conversion.notes)
        assert (
            "null branch of the root anyOf dropped" in details and "only the common properties stay required" in details
        )
