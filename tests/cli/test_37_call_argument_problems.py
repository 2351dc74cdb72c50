"""Issue 37, item 7: ``call`` names every argument problem, missing ones first, in one wording.

Text mode listed only the first problem and ``--json`` used the window's "Required: fill this in.";
a misspelt key listed the unexpected key and hid the missing one.
"""

from __future__ import annotations

import json

import pytest

from elftia_desktop.cli import main
from tests.helpers.live_router import add_servers, server_input


@pytest.fixture(autouse=True)
def basic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELFTIA_NO_DAEMON", "1")
    add_servers(server_input("basic", "basic"))


def test_every_problem_is_named_missing_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "basic", "add", "--args", '{"a": "one", "bb": 2}']) == 2
    err = capsys.readouterr().err
    assert "--args: 2 problems; not sent:" in err
    lines = [line.strip() for line in err.splitlines()]
    assert lines.index("b: required, but not given") < lines.index("a: 'one' is not of type 'integer'")


def test_json_uses_the_same_wording(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "basic", "add", "--args", '{"a": 1}', "--json"]) == 2
    payload = json.loads(capsys.readouterr().out)
    assert payload["field"] == "b"
    assert payload["problems"] == [{"field": "b", "message": "required, but not given"}]
