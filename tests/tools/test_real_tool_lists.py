"""Tool lists captured from real MCP servers (and the hard cases), converted to every format and
checked against the providers' SDK types and documented rules."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from elftia_desktop.tools.loader import FORMATS, convert_tools
from tests.tools.provider_checks import check_all, check_openai, check_strict

DATA = Path(__file__).parent / "data"
FILES = sorted(DATA.glob("*.json"))


def load(path: Path) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["tools"]
    return tools


def test_captured_lists_are_present() -> None:
    names = {p.stem for p in FILES}
    assert {"everything", "filesystem", "memory", "time", "fetch", "pydantic_hard_cases", "zod_style"} <= names
    captured = [json.loads(p.read_text(encoding="utf-8")) for p in FILES]
    real = [data for data in captured if "package" in data]
    assert len(real) >= 20 and sum(len(data["tools"]) for data in real) >= 500
    for data in real:  # each file says which published package (and version) it was captured from
        package = data["package"]
        assert package["registry"] in ("npm", "pypi") and package["name"] and package["version"][0].isdigit()
    assert {d["package"]["registry"] for d in real} == {"npm", "pypi"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_is_accepted(path: Path, fmt: str) -> None:
    tools = load(path)
    before = copy.deepcopy(tools)
    conversion = convert_tools(tools, fmt)
    assert tools == before, "the converter changed its input"
    check_all({fmt: conversion.payload})
    assert sorted(ref.tool_name for ref in conversion.name_map.values()) == sorted(t["name"] for t in tools)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
@pytest.mark.parametrize("fmt", ["openai", "openai-responses"])
def test_strict_mode_or_a_named_fallback(path: Path, fmt: str) -> None:
    tools = load(path)
    conversion = convert_tools(tools, fmt, strict=True)
    check_openai(conversion.payload, responses=fmt == "openai-responses")
    fallbacks = {n.tool for n in conversion.notes if n.action == "fallback"}
    for tool, original in zip(conversion.payload, tools, strict=True):
        function = tool if fmt == "openai-responses" else tool["function"]
        assert function["strict"] is (original["name"] not in fallbacks)
        if function["strict"]:
            check_strict(function["parameters"], function["parameters"])


def test_real_servers_strict_where_possible() -> None:
    tools = [t for p in FILES if p.stem in ("everything", "filesystem", "memory", "time", "fetch") for t in load(p)]
    conversion = convert_tools(tools, "openai", strict=True)
    assert all(t["function"]["strict"] for t in conversion.payload), [str(n) for n in conversion.warnings]


def test_mcp_only_fields_never_leak() -> None:
    tools = load(DATA / "zod_style.json") + load(DATA / "filesystem.json")
    for fmt in FORMATS:
        text = json.dumps(convert_tools(tools, fmt).payload)
        for field in ("outputSchema", "annotations", "_meta", "icons", "execution", "readOnlyHint", "$schema"):
            assert field not in text, (fmt, field)
