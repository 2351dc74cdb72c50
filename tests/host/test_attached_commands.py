"""``test``, ``discover`` and ``logs`` on the pool host: the same output as in-process, on the host's one process.

The tests that only use alpha through a running host share the module's (``shared_dir``); those that
compare a fresh host's logs, or need none, have their own.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from tests.gateway.gateway_helpers import REPO, add_stdio, gateway_env, open_catalog, poll
from tests.helpers.memory_servers import in_memory_servers
from tests.helpers.processes import interrupt
from tests.host.host_helpers import SharedFolders, cli, elftia_processes, host_status, server_pids

pytestmark = [pytest.mark.timeout(300)]


def add_servers(data_dir: Path) -> Path:
    """alpha (basic), gamma (features), broken (exits 3 at start), held (not trusted); the folder."""
    catalog = open_catalog(data_dir)
    add_stdio(catalog, "alpha", "basic")
    add_stdio(catalog, "gamma", "features")
    add_stdio(catalog, "broken", "exit3")
    add_stdio(catalog, "held", "basic", trusted=False)
    return data_dir


@pytest.fixture(scope="module")
def shared_folders(shared_folders: SharedFolders) -> SharedFolders:
    """The module's folders with the four servers: one host for the tests that only use alpha through it."""
    add_servers(shared_folders.data_dir)
    return shared_folders


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    """This test's own folder with the four servers, for a test that needs a host's first start (or none)."""
    return add_servers(isolated_data_dir)


def same_output(result: subprocess.CompletedProcess[str]) -> tuple[int, str, list[str]]:
    """Exit code, stdout and the last stderr line, with the time a test took taken out."""
    stdout = re.sub(r"OK in \d+ ms", "OK in N ms", result.stdout)
    stdout = re.sub(r'"durationMs": [0-9.e-]+', '"durationMs": N', stdout)
    return result.returncode, stdout, result.stderr.splitlines()[-1:]


def test_test_discover_and_logs_print_the_same_with_and_without_the_host(data_dir: Path) -> None:
    started = json.loads(cli(data_dir, "daemon", "start", "--json").stdout)
    assert started["started"]
    for server in ("alpha", "gamma", "broken", "held", "nobody"):
        for command in ("logs", "test", "discover"):  # logs first: the host's log then holds one start, as in-process
            for extra in ([], ["--json"]) if server in ("alpha", "gamma") or command == "test" else ([],):
                with in_memory_servers() if command != "logs" else contextlib.nullcontext():
                    direct = cli(data_dir, command, server, "--no-daemon", *extra)
                attached = cli(data_dir, command, server, *extra)
                assert same_output(attached) == same_output(direct), (command, server, extra, attached.stderr)
                assert "warning" not in attached.stderr  # it did reach the host
    status = host_status()
    assert status is not None and status["pid"] == started["pid"]
    assert {s["name"]: s["state"] for s in status["servers"]} == {"alpha": "connected", "gamma": "connected"}
    assert {s["name"]: s["state"] for s in status["failedServers"]} == {"broken": "error", "held": "error"}
    assert len(server_pids(data_dir, "basic.py")) == 1  # alpha's; held never ran


def test_test_uses_the_hosts_connection_the_server_runs_once(shared_dir: Path) -> None:
    called = cli(shared_dir, "call", "alpha", "echo", "--args", '{"text": "warm"}')
    assert called.returncode == 0, called.stderr
    [pid] = server_pids(shared_dir, "basic.py")
    for command in ("test", "discover", "test"):
        result = cli(shared_dir, command, "alpha")
        assert result.returncode == 0, result.stderr
        assert server_pids(shared_dir, "basic.py") == [pid]
    tested = json.loads(cli(shared_dir, "test", "alpha", "--json").stdout)
    assert tested["success"] and "echo" in tested["tools"]
    logs = json.loads(cli(shared_dir, "logs", "alpha", "--json").stdout)
    starts = [line for line in logs["lines"] if line.startswith("[protocol] modern era")]
    assert logs["success"] and len(starts) == 1  # one connection served the call, the tests and discover
    status = host_status()
    assert status is not None and status["processes"] == [pid]


def test_logs_shows_the_hosts_log_of_the_running_server(shared_dir: Path) -> None:
    started = cli(shared_dir, "call", "alpha", "stderr", "--args", '{"line": "seen by the host"}')
    assert started.returncode == 0, started.stderr
    logs = cli(shared_dir, "logs", "alpha")
    assert logs.returncode == 0, logs.stderr
    assert "seen by the host" in logs.stdout  # a line of the host's process: an own start would not have it
    direct = cli(shared_dir, "logs", "alpha", "--no-daemon")
    assert "seen by the host" not in direct.stdout


def test_logs_starts_no_daemon_test_and_discover_do(data_dir: Path) -> None:
    logs = cli(data_dir, "logs", "alpha")
    assert logs.returncode == 0, logs.stderr
    assert "[protocol]" in logs.stdout and host_status() is None
    assert not elftia_processes(data_dir)  # its own server stopped with it
    tested = cli(data_dir, "test", "alpha")
    assert tested.returncode == 0, tested.stderr
    status = host_status()
    assert status is not None and [s["name"] for s in status["servers"]] == ["alpha"]
    stopped = cli(data_dir, "daemon", "stop", "--json")
    assert json.loads(stopped.stdout)["stopped"]
    assert anyio.run(poll, lambda: not elftia_processes(data_dir))


def follow(data_dir: Path, *args: str) -> tuple[int, list[str]]:
    """``logs alpha --follow ARGS`` until alpha's two start lines came, then Ctrl+C: exit code and lines."""
    follower = subprocess.Popen(
        [sys.executable, "-m", "elftia_desktop.cli", "logs", "alpha", "--follow", "--json", *args],
        env=gateway_env(data_dir) | {"PYTHONFAULTHANDLER": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert follower.stdout is not None
    lines = [json.loads(follower.stdout.readline()) for _ in range(2)]
    _out, err = interrupt(follower)
    assert not err
    return follower.returncode, lines


def test_logs_follow_prints_the_same_with_and_without_the_host(data_dir: Path) -> None:
    assert json.loads(cli(data_dir, "daemon", "start", "--json").stdout)["started"]
    direct = follow(data_dir, "--no-daemon")
    assert host_status() is not None and "alpha" not in {s["name"] for s in host_status()["servers"]}  # type: ignore[index]
    attached = follow(data_dir)
    assert attached == direct
    assert attached[0] == 130 and all(line["line"].startswith("[protocol]") for line in attached[1])
    assert len(server_pids(data_dir, "basic.py")) == 1  # the host's alpha: the follower's own one stopped with it


def test_attached_commands_load_no_sdk(shared_dir: Path) -> None:
    probe = (
        "import sys\nfrom elftia_desktop.cli import main\ncode = main(sys.argv[1:])\n"
        "print('loaded:', code, sorted(name for name in ('mcp', 'pydantic') if name in sys.modules))"
    )
    for command in ("test", "discover", "logs"):
        done = subprocess.run(
            [sys.executable, "-c", probe, command, "alpha"],
            env=gateway_env(shared_dir),
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=120,
            check=False,
        )
        assert done.stdout.splitlines()[-1] == "loaded: 0 []", (command, done.stderr)


def test_no_daemon_env_runs_in_process(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELFTIA_NO_DAEMON", "1")
    with in_memory_servers() as opened:  # the point is that no host starts: gamma needs no process for it
        for command in ("test", "discover"):
            result = cli(data_dir, command, "gamma")
            assert result.returncode == 0, result.stderr
    assert opened == ["features", "features"]  # each command opened gamma itself
    assert host_status() is None
    assert not elftia_processes(data_dir)


if sys.platform != "linux":  # pragma: no cover
    pytestmark.append(pytest.mark.skip(reason="/proc and SO_PEERCRED"))
