"""Issue 37, item 7: notes added to a description start a new sentence and count in the right number."""

from __future__ import annotations

import json
from pathlib import Path

from elftia_desktop.tools.describe import add_description, keyword_text
from elftia_desktop.tools.loader import convert_tools

DATA = Path(__file__).parent / "data"


def test_fetch_url_reads_as_sentences() -> None:
    tools = json.loads((DATA / "fetch.json").read_text(encoding="utf-8"))["tools"]
    params = convert_tools(tools, "openai", strict=True).payload[0]["function"]["parameters"]
    assert params["properties"]["url"]["description"] == "URL to fetch. Format: uri. At least 1 character."


def test_sentence_breaks_and_plurals() -> None:
    out = {"description": "Paths (absolute)"}
    add_description(out, keyword_text("maxItems", 3))
    assert out["description"] == "Paths (absolute) At most 3 items."  # ends in a bracket: no stop added
    out = {"description": "The names"}
    add_description(out, keyword_text("minProperties", 1))
    assert out["description"] == "The names. At least 1 property."
    assert keyword_text("minLength", 2) == "At least 2 characters."
