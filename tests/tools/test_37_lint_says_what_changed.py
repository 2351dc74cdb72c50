"""Issue 37, item 5: ``--lint`` never says "sent unchanged" of a payload that differs from the server's schema.

A zod-style schema with ``$schema``, a root ``title``, an optional ``default: null`` and
``additionalProperties: false``: openai, openai strict and gemini each leave something out, and
the lint names it (as a change that loses nothing).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elftia_desktop.cli import main

TOOL = {
    "name": "lookup",
    "description": "Look a word up.",
    "inputSchema": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "LookupArgs",
        "type": "object",
        "properties": {"word": {"type": "string"}, "lang": {"type": "string", "default": None}},
        "required": ["word"],
        "additionalProperties": False,
    },
}


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--format", "openai"], ["$schema", "title"]),
        (["--format", "openai", "--strict"], ["$schema", "title", "properties.lang.default"]),
        (["--format", "gemini"], ["$schema", "title", "properties.lang.default", "additionalProperties"]),
    ],
    ids=["openai", "openai-strict", "gemini"],
)
def test_the_lint_names_what_was_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], expected: list[str]
) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [TOOL]}), encoding="utf-8")
    assert main(["convert", *flags, "--lint", str(path)]) == 0
    out = capsys.readouterr().out
    assert "sent unchanged" not in out
    rows = [line.split() for line in out.splitlines()[2:]]
    wheres = {row[1] for row in rows if len(row) > 2 and row[0] == "lookup"}
    assert set(expected) <= wheres, out
