"""Issue 37, item 2: OpenAI strict mode keeps "omitted" and "null" apart for optional nullable properties.

The shape of ``@playwright/mcp``'s ``browser_emulate_media`` ("omitted parameters are left
unchanged; null clears an override") on a server of our own, reached over the SDK's in-memory
transport: a strict-mode model must send every property, and the properties it leaves as ``null``
must not reach the server; an explicit null must. Then the property test over the captured real
tool lists: instances of each original schema, written as a strict model must, restored through the
name map, equal the original.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, NamedTuple

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from mcp import types
from mcp.client.client import Client
from mcp.server import Server

from elftia_desktop.tools.arguments import NULL_TEXT
from elftia_desktop.tools.convert import Conversion
from elftia_desktop.tools.loader import convert_tools
from elftia_desktop.tools.schema import process_json_schema
from tests.tools.argument_samples import encode_arguments
from tests.tools.schema_instances import instances

DATA = Path(__file__).parent / "data"
OVERRIDE = {"anyOf": [{"type": "string", "enum": ["light", "dark"]}, {"type": "null"}]}
EMULATE = types.Tool(
    name="emulate_media",
    description="Omitted parameters are left unchanged; null clears an override.",
    input_schema={
        "type": "object",
        "properties": {
            "colorScheme": OVERRIDE,
            "reducedMotion": {"anyOf": [{"type": "string", "enum": ["reduce", "no-preference"]}, {"type": "null"}]},
            "media": {"type": ["string", "null"]},
            "tab": {"type": "integer"},
        },
    },
)


def emulate_server(received: list[dict[str, Any]]) -> Server[Any]:
    """A low-level SDK server whose one tool records the arguments exactly as they arrive."""

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[EMULATE])

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        received.append(dict(params.arguments or {}))
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

    return Server("emulate", on_list_tools=list_tools, on_call_tool=call_tool)


def test_a_strict_model_that_sets_one_override_leaves_the_others_unchanged() -> None:
    received: list[dict[str, Any]] = []

    async def main() -> None:
        async with Client(emulate_server(received)) as client:
            listed = (await client.list_tools()).tools
            tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed]
            conversion = convert_tools(tools, "openai", strict=True)
            params = conversion.payload[0]["function"]["parameters"]
            model_calls = [  # what a strict model must send: every property, null where it means nothing
                {"colorScheme": "dark", "reducedMotion": None, "media": None, "tab": None},
                {"colorScheme": NULL_TEXT, "reducedMotion": None, "media": NULL_TEXT, "tab": 2},
                {"colorScheme": None, "reducedMotion": "reduce", "media": "print", "tab": None},
            ]
            for sent in model_calls:
                assert not list(Draft202012Validator(params).iter_errors(sent)), sent
                arguments = conversion.name_map.restore_arguments("emulate_media", sent)
                await client.call_tool("emulate_media", arguments)

    anyio.run(main)
    assert received == [
        {"colorScheme": "dark"},
        {"colorScheme": None, "media": None, "tab": 2},
        {"reducedMotion": "reduce", "media": "print"},
    ]


def test_the_lint_says_how_an_explicit_null_is_sent() -> None:
    tool = EMULATE.model_dump(mode="json", by_alias=True, exclude_none=True)
    conversion = convert_tools([tool], "openai", strict=True)
    details = {n.path: n.detail for n in conversion.notes}
    assert NULL_TEXT in details["properties.colorScheme"]
    assert NULL_TEXT in details["properties.media"]  # a free string too: its plain values stay plain


class StrictCase(NamedTuple):
    """One captured tool whose schema declares properties, converted for OpenAI strict mode once."""

    name: str
    schema: dict[str, Any]
    conversion: Conversion
    validator: Draft202012Validator
    instances: st.SearchStrategy[Any]


@functools.cache
def _strict_cases(path: Path) -> list[StrictCase]:
    """The tools of the captured list ``path`` with declared properties that are sent with ``strict: true``
    (a tool over a limit is sent with ``strict: false``: nothing of it is rewritten), prepared once."""
    cases = []
    for tool in json.loads(path.read_text(encoding="utf-8"))["tools"]:
        schema = tool.get("inputSchema") or {}
        if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
            continue
        conversion = convert_tools([{"name": tool["name"], "inputSchema": schema}], "openai", strict=True)
        if conversion.payload and conversion.payload[0]["function"].get("strict"):
            validator = Draft202012Validator(conversion.payload[0]["function"]["parameters"])
            strategy = instances(process_json_schema(schema), schema)
            cases.append(StrictCase(tool["name"], schema, conversion, validator, strategy))
    return cases


LISTS = sorted(DATA.glob("*.json"))
SHAPE_ERRORS = ("type", "required", "additionalProperties", "enum", "const")
"""The errors that say the arguments' shape is wrong (not a pattern or a length the instances ignore)."""


@pytest.mark.parametrize("path", LISTS, ids=[p.stem for p in LISTS])
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(data=st.data())
def test_real_tools_instances_survive_strict_mode(path: Path, data: Any) -> None:
    """Each example draws an instance of every strict tool of the list: each tool gets ``max_examples`` of them
    (one test per list, not per tool: hypothesis's start and the conversion are paid once per list)."""
    for case in _strict_cases(path):
        instance = data.draw(case.instances, label=case.name)
        provider_name = next(iter(case.conversion.name_map))
        sent = encode_arguments(instance, case.conversion.name_map.argument_map(provider_name))
        shape = [e.message for e in case.validator.iter_errors(sent) if e.validator in SHAPE_ERRORS]
        assert not shape, (case.name, shape)  # what a strict model must send: every property, of the declared types
        assert case.conversion.name_map.restore_arguments(provider_name, sent) == instance, case.name
