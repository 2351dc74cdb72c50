"""``elftia-mcp test|discover|call|logs`` on a temporary store: in process, and once as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli_runner import CliResult, run_cli
from tests.servers.serve_http import server_command

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("memory_servers")]


def _cli(data: Path, *args: str) -> CliResult:
    """``elftia-mcp ARGS`` in process on the store in ``data``."""
    return run_cli(*args, data_dir=data)


def _process(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m elftia_desktop.cli ARGS`` as a real process on the store in ``data``."""
    env = os.environ | {"ELFTIA_DATA_DIR": str(data)}
    argv = [sys.executable, "-m", "elftia_desktop.cli", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A store with a trusted stdio server 'basic' and an untrusted 'stranger'."""
    command = server_command("basic")
    for args in (("basic", "--trust"), ("stranger",)):
        added = _cli(tmp_path, "add", *args, "--", *command)
        assert added.returncode == 0, added.stderr
    return tmp_path


def test_test_and_discover(data: Path) -> None:
    result = _cli(data, "test", "basic", "--json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["success"] is True and "echo" in payload["tools"]

    text = _cli(data, "discover", "basic")
    assert text.returncode == 0, text.stderr
    assert "Prompts (1):" in text.stdout and "memo://hello" in text.stdout


def test_call_with_args_and_elicitation(data: Path) -> None:
    result = _cli(data, "call", "basic", "echo", "--args", '{"text": "hi there"}')
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "hi there"

    accepted = _cli(data, "call", "basic", "ask_name", "--elicit", "accept-defaults", "--json")
    assert json.loads(accepted.stdout)["content"][0]["text"] == "hello Ada (36)"
    declined = _cli(data, "call", "basic", "ask_name", "--elicit", "decline")
    assert declined.stdout.strip() == "no name: decline"

    failed = _cli(data, "call", "basic", "fail", "--args", '{"reason": "broken"}')
    assert failed.returncode == 1 and "Error executing tool fail" in failed.stdout


def test_bad_input_and_untrusted(data: Path) -> None:
    bad = _cli(data, "call", "basic", "echo", "--args", '{"text": }', "--json")
    assert bad.returncode == 2
    payload = json.loads(bad.stdout)
    assert payload["line"] == 1 and payload["column"] == 10 and "--args" in payload["error"]

    refused = _cli(data, "call", "stranger", "echo", "--args", '{"text": "x"}')
    assert refused.returncode == 1
    assert "not trusted" in refused.stderr and "elftia-mcp trust stranger)" in refused.stderr

    timeout = _cli(data, "call", "basic", "slow", "--args", '{"seconds": 30}', "--timeout", "1")
    assert timeout.returncode == 1 and "timed out" in timeout.stderr


def test_logs(data: Path) -> None:
    result = _cli(data, "logs", "basic", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["success"] is True
    exited = server_command("exit3")
    assert _cli(data, "add", "exits", "--trust", "--", *exited).returncode == 0
    failed = _cli(data, "logs", "exits")
    assert failed.returncode == 1
    assert "fatal: missing API_KEY (exit 3)" in failed.stdout
    assert "exited with code 3" in failed.stderr


def test_exit_codes_of_the_real_process(data: Path) -> None:
    """The entry point as a process: output on the pipes and the exit codes 0, 1 and 2 reach the OS."""
    called = _process(data, "call", "basic", "echo", "--args", '{"text": "hi there"}')
    assert called.returncode == 0 and called.stdout.strip() == "hi there", called.stderr
    failed = _process(data, "call", "basic", "fail", "--args", '{"reason": "broken"}')
    assert failed.returncode == 1 and "Error executing tool fail" in failed.stdout
    bad = _process(data, "call", "basic", "echo", "--args", '{"text": }')
    assert bad.returncode == 2 and "--args" in bad.stderr
