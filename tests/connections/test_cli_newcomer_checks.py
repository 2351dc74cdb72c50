"""``elftia-mcp`` as a newcomer meets it, in process on a temporary store: ``list`` prints whole values
into a pipe, ``test``/``discover`` mark disabled tools, ``call`` checks the arguments against the tool's input
schema before sending (exit 2 naming the field), and a non-boolean ``disabled`` is refused naming the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli_runner import CliResult, run_cli
from tests.servers.serve_http import server_command

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("memory_servers")]
EXIT_BAD_INPUT = 2
COMMAND = server_command("basic", "--transport", "stdio")
"""The server's command line, over 60 characters wherever the checkout lies (the default spelled out)."""


def cli(data: Path, *args: str, stdin: str | None = None) -> CliResult:
    """``elftia-mcp ARGS`` in process on the store in ``data``."""
    return run_cli(*args, stdin=stdin, data_dir=data)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A store with the trusted stdio server ``basic`` (its command line is longer than 60 characters)."""
    added = cli(tmp_path, "add", "basic", "--trust", "--", *COMMAND)
    assert added.returncode == 0, added.stderr
    return tmp_path


def test_list_prints_whole_values_into_a_pipe(data: Path) -> None:
    listed = cli(data, "list")
    assert listed.returncode == 0, listed.stderr
    whole = " ".join(COMMAND)
    assert len(whole) > 60 and whole in listed.stdout and "…" not in listed.stdout


def test_test_and_discover_mark_disabled_tools(data: Path) -> None:
    assert cli(data, "disable-tool", "basic", "crash").returncode == 0
    tested = cli(data, "test", "basic")
    assert tested.returncode == 0, tested.stderr
    assert "  crash  (disabled)" in tested.stdout.splitlines() and "  echo" in tested.stdout.splitlines()
    assert ", 1 disabled" in tested.stdout.splitlines()[0]
    discovered = cli(data, "discover", "basic")
    assert any(line.startswith("  crash  (disabled)") for line in discovered.stdout.splitlines())


def test_call_checks_the_arguments_first(data: Path) -> None:
    wrong = cli(data, "call", "basic", "add", "--args", '{"a": "one", "b": 2}')
    assert wrong.returncode == EXIT_BAD_INPUT, wrong.stderr
    assert wrong.stderr.startswith("error: --args: a: 'one' is not of type 'integer'") and "not sent" in wrong.stderr
    assert ".;" not in wrong.stderr and ". (and" not in wrong.stderr  # no sentence stop inside the line
    missing = cli(data, "call", "basic", "add", "--args", '{"a": 1}', "--json")
    assert missing.returncode == EXIT_BAD_INPUT
    payload = json.loads(missing.stdout)
    assert payload["field"] == "b" and "required" in payload["error"]
    good = cli(data, "call", "basic", "add", "--args", '{"a": 1, "b": 2}')
    assert good.returncode == 0, good.stderr


def test_a_non_boolean_disabled_is_refused(tmp_path: Path) -> None:
    text = json.dumps({"mcpServers": {"maybe": {"command": "uvx", "args": ["x"], "disabled": "yes please"}}})
    added = cli(tmp_path, "add-json", "-", stdin=text)
    assert added.returncode != 0
    assert 'disabled: expected true or false, got "yes please"' in added.stderr + added.stdout
    assert "maybe" not in cli(tmp_path, "list").stdout
