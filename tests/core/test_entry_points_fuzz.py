"""Issue 14, property: whatever bytes, JSON or server objects come in, the outcome is stored servers
that validate or a refusal with a message; never an exception, and a refusal writes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elftia_desktop.cli import main as cli_main
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.server_json import parse_servers_json

ANY_TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | ANY_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
    max_leaves=20,
)
SERVER = st.fixed_dictionaries(
    {},
    optional={
        "command": ANY_TEXT,
        "args": st.lists(ANY_TEXT, max_size=3),
        "env": st.dictionaries(ANY_TEXT, ANY_TEXT, max_size=2),
        "cwd": ANY_TEXT,
        "url": st.sampled_from(["https://a.test/mcp", "ftp://a.test", "http://", "", "https://a b/"]) | ANY_TEXT,
        "headers": st.dictionaries(ANY_TEXT, ANY_TEXT, max_size=2),
        "type": st.sampled_from(["stdio", "sse", "http", "streamableHttp", "pigeon"]),
        "timeout": st.integers(-5, 10**6) | st.floats(allow_nan=False, allow_infinity=True) | JSON_VALUES,
        "disabled": JSON_VALUES,
    },
)
SERVER_FILES = st.dictionaries(ANY_TEXT | st.text(min_size=90, max_size=130), SERVER, max_size=3).map(
    lambda servers: json.dumps({"mcpServers": servers}).encode()
)
INPUTS = st.binary(max_size=120) | JSON_VALUES.map(lambda v: json.dumps(v).encode()) | SERVER_FILES
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(data=INPUTS)
def test_add_json_through_the_cli_never_raises_and_refusals_write_nothing(
    data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "input.json"
    source.write_bytes(data)
    config = ConfigStore().path
    before = config.read_bytes() if config.exists() else None
    count_before = len(ConfigStore().records())
    code = cli_main(["add-json", str(source), "--json", "--on-conflict", "rename"])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert code in (0, 1, 2)
    store = ConfigStore()
    assert store.notices == [], "everything stored validates"
    added = [r for r in report.get("results", []) if r.get("success")]
    assert len(store.records()) == count_before + len(added)
    if not added:
        assert code == 2 and report["success"] is False
        assert report.get("error") or all(r.get("error") for r in report["results"]), "a refusal says why"
        assert (config.read_bytes() if config.exists() else None) == before, "a refusal writes nothing"


@FUZZ
@given(data=INPUTS)
def test_the_shared_parser_returns_servers_or_a_json_input_error(data: bytes) -> None:
    from elftia_desktop.core.errors import JsonInputError
    from elftia_desktop.core.json_input import decode_json_bytes

    try:
        parsed = parse_servers_json(decode_json_bytes(data, "input"))
    except JsonInputError as exc:
        assert str(exc)
        return
    for entry in parsed:
        assert (entry.server is None) != (entry.error is None)
        if entry.server is not None:
            entry.server.to_record()  # what validates as input also validates as a record
