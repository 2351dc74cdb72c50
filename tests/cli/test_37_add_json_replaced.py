"""Issue 37, item 7: ``add-json --on-conflict replace`` says "replaced" for an entry it replaced."""

from __future__ import annotations

import io
import json

import pytest

from elftia_desktop.cli import main

ENTRY = {"mcpServers": {"clock": {"command": "python3", "args": ["-m", "clock"]}}}


def _add_json(monkeypatch: pytest.MonkeyPatch, *flags: str) -> int:
    stdin = io.TextIOWrapper(io.BytesIO(json.dumps(ENTRY).encode()), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", stdin)
    return main(["add-json", "-", *flags])


def test_replace_says_replaced(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert _add_json(monkeypatch) == 0
    assert capsys.readouterr().out.strip() == "added    clock"
    assert _add_json(monkeypatch, "--on-conflict", "replace") == 0
    assert capsys.readouterr().out.strip() == "replaced clock"
    assert _add_json(monkeypatch, "--on-conflict", "replace", "--json") == 0
    (row,) = json.loads(capsys.readouterr().out)["results"]
    assert row["replaced"] is True and row["name"] == "clock"
