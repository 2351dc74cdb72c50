"""The one tool-name sanitizer (core/tool_names.py): ids, prefixed names, provider names, parameter names."""

from __future__ import annotations

from elftia_desktop.core.tool_names import prefixed_name, prefixed_names, sanitize_name, tool_id
from elftia_desktop.tools.names import ToolRef, is_valid_name, parameter_names


def test_tool_ids_replace_every_non_alphanumeric_character() -> None:
    # DESIGN.md §5: MCPTool.id = mcp__{server}__{tool}, non-alphanumerics replaced by "_" (no folding)
    assert tool_id("GitHub Enterprise", "create.issue") == "mcp__GitHub_Enterprise__create_issue"
    assert tool_id("café", "a-b_c") == "mcp__caf___a_b_c"
    assert tool_id("docs.example", "x") == "mcp__docs_example__x"


def test_prefixed_names_are_provider_safe_unique_and_lead_back() -> None:
    assert prefixed_name("GitHub Enterprise", "create.issue") == "GitHub_Enterprise__create_issue"
    assert prefixed_name("2fa", "code") == "_2fa__code"
    assert prefixed_name("-x", "y") == "_-x__y"
    items = [("s1", "a b", "x"), ("s2", "a-b", "x"), ("s3", "a_b", "x"), ("s4", "long" * 20, "tool")]
    routes = prefixed_names(items)
    names = list(routes)
    assert len(set(names)) == 4
    assert all(is_valid_name(n, "openai") and is_valid_name(n, "gemini") for n in names)
    assert routes[names[0]] == ToolRef("s1", "x")
    assert routes[names[3]] == ToolRef("s4", "tool")
    assert len(names[3]) == 64
    assert prefixed_names(items) == routes  # stable across runs
    assert prefixed_names([("s4", "long" * 20, "toot")]) != routes  # the hash is of the identity


def test_direct_tool_names_follow_the_same_rule_as_the_gateway() -> None:
    assert list(prefixed_names([("direct:clock", "clock", "get_current_time")])) == ["clock__get_current_time"]
    assert list(prefixed_names([("d", "my server", "do.it")])) == ["my_server__do_it"]
    assert list(prefixed_names([("d", "1st", "x")])) == ["_1st__x"]


def test_provider_and_parameter_rules_share_the_sanitizer() -> None:
    assert sanitize_name("café au lait", "openai") == "cafe_au_lait"
    assert sanitize_name("9 lives", "gemini") == "_9_lives"
    assert sanitize_name("a.b:c", "gemini") == "a.b:c"
    assert sanitize_name("", "openai") == "tool"
    assert parameter_names(["ok", "naïve name", "1x", "x-y", "x_y"]) == {
        "naïve name": "naive_name",
        "1x": "_1x",
        "x-y": "x_y_2",
    }
