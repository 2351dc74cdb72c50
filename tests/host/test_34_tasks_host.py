"""Issue 34: a task server through the pool host (a real daemon, real server processes).

A long call is polled to its end with its states on the command's stderr; Ctrl+C on the command
cancels the task upstream; and a task outlives its host (as when the window quits and comes back):
the next host lists it from the data folder and follows it to its end. The tasks server keeps its
tasks in a file (``ELFTIA_TEST_TASKS_FILE``), as a job service behind a server would. The first two
tests share the module's host and tasks server (``shared_dir``); the one that stops its host has its own.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from elftia_desktop.host import client
from tests.gateway.gateway_helpers import REPO, add_stdio, gateway_env, open_catalog
from tests.host.host_helpers import SharedFolders, cli, host_status

pytestmark = [pytest.mark.timeout(300)]
WAIT = 60.0


@pytest.fixture
def server_tasks(tmp_path: Path) -> Path:
    """The file the tasks server keeps its tasks in."""
    return tmp_path / "server-tasks.json"


def add_tasked(data_dir: Path, server_tasks: Path) -> Path:
    """``tasked``: the tasks server over stdio, trusted, keeping its tasks in ``server_tasks``; the folder."""
    add_stdio(open_catalog(data_dir), "tasked", "tasks", config={"env": {"ELFTIA_TEST_TASKS_FILE": str(server_tasks)}})
    return data_dir


@pytest.fixture(scope="module")
def shared_folders(shared_folders: SharedFolders) -> SharedFolders:
    """The module's folders with ``tasked``: one host and one tasks server for the tests that only use them
    (each looks at its own tasks)."""
    add_tasked(shared_folders.data_dir, shared_folders.data_dir / "server-tasks.json")
    return shared_folders


@pytest.fixture
def shared_tasks(shared_dir: Path) -> Path:
    """The file the module's tasks server keeps its tasks in."""
    return shared_dir / "server-tasks.json"


@pytest.fixture
def data_dir(isolated_data_dir: Path, server_tasks: Path) -> Path:
    """This test's own folder with ``tasked``, for a test that stops its host."""
    return add_tasked(isolated_data_dir, server_tasks)


def wait_until(check: Callable[[], Any], what: str) -> Any:
    """Look every 50 ms until ``check()`` is truthy (files and another process's state send no events)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"no {what} within {WAIT:.0f} s")


def upstream(server_tasks: Path) -> dict[str, str]:
    """``{taskId: status}`` as the server keeps them."""
    if not server_tasks.exists():
        return {}
    return {key: job["status"] for key, job in json.loads(server_tasks.read_text(encoding="utf-8")).items()}


def start_waiting_call(data_dir: Path, flag: Path) -> subprocess.Popen[str]:
    """``call tasked wait_for_file`` in its own process, once its task said it waits (read from its stderr)."""
    arguments = json.dumps({"path": str(flag)})
    command = subprocess.Popen(
        [sys.executable, "-m", "elftia_desktop.cli", "call", "tasked", "wait_for_file", "--yes", "--args", arguments],
        env=gateway_env(data_dir),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert command.stderr is not None
    for line in command.stderr:
        if line.rstrip().endswith("working: waiting for the file"):
            return command
    raise AssertionError(f"the call ended without its task waiting: {command.wait()}")


def test_a_long_call_through_the_host_is_polled_with_its_states_on_stderr(shared_dir: Path) -> None:
    started = json.loads(cli(shared_dir, "daemon", "start", "--json").stdout)
    called = cli(shared_dir, "call", "tasked", "count_steps", "--args", '{"steps": 3}', "--json", "--yes")
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["content"] == [{"type": "text", "text": "counted 3 steps"}]
    states = [line.split(": ", 1)[1] for line in called.stderr.splitlines() if line.startswith("task ")]
    assert states == ["working: started", "working: step 1 of 3", "working: step 2 of 3", "completed: counted 3 steps"]
    assert "warning" not in called.stderr  # it ran on the host
    [task] = [t for t in client.tasks() or [] if t.tool_name == "count_steps"]  # the other tests' tasks wait
    assert task.status == "completed"
    status = host_status()
    assert status is not None and status["pid"] == started["pid"]


def test_ctrl_c_on_the_command_cancels_the_task_upstream(shared_dir: Path, shared_tasks: Path, tmp_path: Path) -> None:
    assert cli(shared_dir, "daemon", "start").returncode == 0  # the module's host, started now or earlier
    earlier = set(upstream(shared_tasks))
    command = start_waiting_call(shared_dir, tmp_path / "never")
    [task_id] = set(upstream(shared_tasks)) - earlier
    command.send_signal(signal.SIGINT)
    command.communicate(timeout=WAIT)
    assert command.returncode == 130
    wait_until(lambda: upstream(shared_tasks)[task_id] == "cancelled", "tasks/cancel at the server")
    wait_until(
        lambda: [t.status for t in client.tasks() or [] if t.task_id == task_id] == ["cancelled"],
        "the task cancelled on the host",
    )


def test_a_task_outlives_its_host_and_the_next_host_follows_it(
    data_dir: Path, server_tasks: Path, tmp_path: Path
) -> None:
    first = json.loads(cli(data_dir, "daemon", "start", "--json").stdout)
    flag = tmp_path / "flag"
    command = start_waiting_call(data_dir, flag)
    [task_id] = upstream(server_tasks)
    assert cli(data_dir, "daemon", "stop").returncode == 0  # the window quits: its pool host goes
    _out, err = command.communicate(timeout=WAIT)
    assert command.returncode == 1 and "pool host stopped" in err
    assert upstream(server_tasks)[task_id] == "working"  # not cancelled
    saved = json.loads((data_dir / "tasks.json").read_text(encoding="utf-8"))["tasks"]
    assert [(t["taskId"], t["status"]) for t in saved] == [(task_id, "working")]

    second = json.loads(cli(data_dir, "daemon", "start", "--json").stdout)
    assert second["pid"] != first["pid"]
    [listed] = client.tasks() or []
    assert listed.task_id == task_id and listed.status == "working"
    flag.write_text("here", encoding="utf-8")
    wait_until(lambda: [t.status for t in client.tasks() or []] == ["completed"], "the task completed")
    assert upstream(server_tasks)[task_id] == "completed"
