"""Every argument of every captured real tool maps back: a sample call, sent in each provider's form, is
accepted by the provider schema and arrives at the server exactly as the server declared it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from elftia_desktop.tools.loader import FORMATS, convert_tools
from elftia_desktop.tools.notes import NoteLog
from elftia_desktop.tools.schema import process_json_schema, root_object
from tests.tools.argument_samples import encode_arguments, gemini_as_json_schema, sample

DATA = Path(__file__).parent / "data"


def is_wrapped(schema: Any) -> bool:
    """Whether the converter wraps ``schema`` (not an object) as a single property."""
    log = NoteLog("t", "openai")
    root_object(schema, log)
    return log.argument_map().wrapped is not None


CORPUS = sorted(p for p in DATA.glob("*.json") if "package" in json.loads(p.read_text(encoding="utf-8")))
FORMS = [(fmt, False) for fmt in FORMATS] + [("openai", True), ("openai-responses", True)]
SHAPE_ERRORS = ("type", "required", "additionalProperties", "enum", "const")
"""The errors that say the arguments' shape is wrong (not a pattern or a length the sample ignores)."""


def provider_schemas(conversion: Any) -> dict[str, Any]:
    """Provider tool name -> the schema the provider's model fills in (JSON Schema)."""
    fmt = conversion.format
    if fmt.startswith("gemini"):
        key = "parametersJsonSchema" if fmt == "gemini-json" else "parameters"
        declarations = conversion.payload[0]["functionDeclarations"] if conversion.payload else []
        return {d["name"]: gemini_as_json_schema(d.get(key, {"type": "OBJECT", "properties": {}})) if fmt == "gemini"
                else d.get(key, {"type": "object"}) for d in declarations}  # fmt: skip
    if fmt == "anthropic":
        return {t["name"]: t["input_schema"] for t in conversion.payload}
    functions = conversion.payload if fmt == "openai-responses" else [t["function"] for t in conversion.payload]
    return {f["name"]: f["parameters"] for f in functions}


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
@pytest.mark.parametrize(("fmt", "strict"), FORMS, ids=lambda v: str(v))
def test_a_sample_call_maps_back_exactly(path: Path, fmt: str, strict: bool) -> None:
    tools = json.loads(path.read_text(encoding="utf-8"))["tools"]
    conversion = convert_tools(tools, fmt, strict=strict)
    schemas = provider_schemas(conversion)
    checked = 0
    for name, ref in conversion.name_map.items():
        original = next(t for t in tools if t["name"] == ref.tool_name).get("inputSchema") or {}
        arguments = sample(original if is_wrapped(original) else process_json_schema(original), original)
        if not isinstance(arguments, dict):
            continue  # a non-object input no call can carry (noted as a warning by the converter)
        sent = encode_arguments(arguments, conversion.name_map.argument_map(name))
        errors = [e for e in Draft202012Validator(schemas[name]).iter_errors(sent) if e.validator in SHAPE_ERRORS]
        assert not errors, (name, fmt, strict, [f"{list(e.absolute_path)}: {e.message[:200]}" for e in errors[:3]])
        assert conversion.name_map.restore_arguments(name, sent) == arguments, (name, fmt, strict)
        checked += 1
    assert checked >= len(tools) - 1
