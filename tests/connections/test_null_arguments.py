"""``null`` for an optional tool argument means "omitted": checked and sent that way; a required one stays an error.

The 2026-07-28 transport mirrors annotated arguments into ``Mcp-Param-*`` headers and omits the header for
``null``; the SDK's servers validate arguments with pydantic, where ``null`` for ``reason: str = "..."`` is
refused. Leaving such a ``null`` out makes the call mean what the caller meant, in both eras. The
``explore`` server runs in memory: what it is sent is the pool's choice, not the transport's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.argument_check import check, omit_null_optionals
from tests.connections.pool_helpers import add_server, stdio_input
from tests.helpers.cli_runner import CliResult, run_cli
from tests.servers.serve_http import server_command

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]
EXIT_BAD_INPUT = 2
SCHEMA = {
    "type": "object",
    "properties": {
        "region": {"type": "string"},
        "verbose": {"type": "boolean"},
        "note": {"type": ["string", "null"]},
        "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "inner": {"type": "object", "properties": {"flag": {"type": "boolean"}}},
    },
    "required": ["region"],
}


def test_null_optionals_are_omitted_unless_the_schema_admits_null() -> None:
    given = {"region": "eu", "verbose": None, "note": None, "limit": None, "inner": {"flag": None}, "extra": None}
    kept = {"region": "eu", "note": None, "limit": None, "inner": {}, "extra": None}
    assert omit_null_optionals(SCHEMA, given) == kept
    assert check(SCHEMA, given) == []


def test_a_null_required_argument_is_still_named() -> None:
    issues = check(SCHEMA, {"region": None, "verbose": None})
    assert [(issue.where, issue.message) for issue in issues] == [("region", "None is not of type 'string'.")]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_server_sees_an_omitted_argument(service: McpService, mode: str) -> None:
    sid = await add_server(service, stdio_input("explore", "explore", config={"protocol": mode}))
    answer = await service.call_tool(sid, "count", {"steps": 1, "delay": None})  # a null float: refused if sent
    assert not answer.is_error and answer.content[0]["text"] == "counted to 1"


def test_cli_call_sends_a_null_optional_and_refuses_a_null_required(tmp_path: Path) -> None:
    def cli(*args: str) -> CliResult:
        return run_cli(*args, data_dir=tmp_path)

    assert cli("add", "explore", "--trust", "--", *server_command("explore")).returncode == 0
    optional = cli("call", "explore", "count", "--args", '{"steps": 1, "delay": null}', "--no-daemon", "--json")
    assert optional.returncode == 0, optional.stderr
    assert json.loads(optional.stdout)["content"][0]["text"] == "counted to 1"
    given = '{"customer": null, "items": [], "note": null}'
    required = cli("call", "explore", "create_order", "--args", given, "--no-daemon", "--json")
    assert required.returncode == EXIT_BAD_INPUT, required.stderr
    assert json.loads(required.stdout)["field"] == "customer"
