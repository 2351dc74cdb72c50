"""Issue 34: ``elftia-mcp call`` of a task tool: status lines on stderr, the result as for any call."""

from __future__ import annotations

import json

import pytest

from tests.connections.pool_helpers import stdio_input
from tests.helpers.cli_runner import run_cli

pytestmark = pytest.mark.usefixtures("memory_servers")


@pytest.fixture
def tasked() -> str:
    """The tasks server saved and trusted as ``tasked``."""
    config = stdio_input("tasked", "tasks").config
    assert run_cli("add", "tasked", "--", config.command or "", *config.args).returncode == 0
    assert run_cli("trust", "tasked", "--yes").returncode == 0
    return "tasked"


def test_a_task_call_prints_its_states_on_stderr_and_its_result(tasked: str) -> None:
    called = run_cli("call", tasked, "count_steps", "--args", '{"steps": 2}', "--json", "--yes")
    assert called.returncode == 0, called.stderr
    result = json.loads(called.stdout)
    assert result["content"] == [{"type": "text", "text": "counted 2 steps"}]
    assert result["structuredContent"] == {"result": "counted 2 steps"}
    lines = [line.split(": ", 1)[1] for line in called.stderr.splitlines() if line.startswith("task ")]
    assert lines == ["working: started", "working: step 1 of 2", "completed: counted 2 steps"]
    human = run_cli("call", tasked, "count_steps", "--args", '{"steps": 1}', "--yes")
    assert human.returncode == 0 and "counted 1 steps" in human.stdout
    assert "completed: counted 1 steps" in human.stderr and "task " not in human.stdout


def test_a_failed_task_fails_the_command(tasked: str) -> None:
    failed = run_cli("call", tasked, "broken_task", "--yes")
    assert failed.returncode == 1
    assert "failed: the job broke" in failed.stderr and "the job broke on purpose" in failed.stderr
