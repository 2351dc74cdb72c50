"""``elftia-mcp convert``: offline conversion of a saved tools/list result, errors with line/column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elftia_desktop.cli import main
from tests.tools.provider_checks import check_anthropic, check_openai

DATA = Path(__file__).parent / "data"


def test_convert_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["convert", "--format", "openai", "--strict", str(DATA / "pydantic_hard_cases.json"), "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"payload", "nameMap", "argumentMap", "skipped", "notes"}
    check_openai(out["payload"])
    assert out["nameMap"]["files_read_v2"] == "files.read v2"
    assert not any("fallback" in n for n in out["notes"])  # the free-form map of shapes is sent JSON-encoded
    assert any(n.startswith("shapes") and "JSON-encoded string" in n for n in out["notes"])
    assert out["argumentMap"]["shapes"]["properties"]["labels"]["jsonEncoded"] is True


def test_convert_bare_list_and_lint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = json.loads((DATA / "fetch.json").read_text())["tools"]
    path = tmp_path / "bare.json"
    path.write_text(json.dumps(tools))
    assert main(["convert", "--format", "anthropic", str(path)]) == 0
    check_anthropic(json.loads(capsys.readouterr().out))
    assert main(["convert", "--format", "gemini", "--lint", str(path)]) == 0
    out = capsys.readouterr().out
    assert "properties.url.format  changed  described in the description (not a format Gemini documents" in out


def test_convert_bad_input_says_where(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"tools": [\n  {"name": "a",}\n]}')
    assert main(["convert", "--format", "openai", str(path), "--json"]) == 2
    error = json.loads(capsys.readouterr().out)
    assert error["line"] == 2 and "not valid JSON" in error["error"]
    path.write_text('{"tools": [{"description": "no name"}]}')
    assert main(["convert", "--format", "openai", str(path)]) == 2
    assert "tools[0]" in capsys.readouterr().err
