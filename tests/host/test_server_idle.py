"""The daemon's idle stop per server: the unused server stops, the used one stays warm, a follower holds its server.

The rules on a clock the test advances (a call in flight holds its server however long) are
tests/host/test_idle_clock.py; here the real daemon stops its real servers after a real 2 s.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from elftia_desktop.host import client
from tests.gateway.gateway_helpers import REPO, add_stdio, gateway_env, open_catalog, poll, process_alive
from tests.host.host_helpers import cli, elftia_processes, host_status, server_pids

pytestmark = [pytest.mark.timeout(180)]


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    """alpha (basic) and gamma (features), and a daemon that stops servers unused for 2 s."""
    catalog = open_catalog(isolated_data_dir)
    add_stdio(catalog, "alpha", "basic")
    add_stdio(catalog, "gamma", "features")
    started = cli(isolated_data_dir, "daemon", "start", "--idle", "2", "--json")
    assert json.loads(started.stdout)["started"], started.stderr
    return isolated_data_dir


def call(server: str, tool: str, **arguments: Any) -> str:
    """One call through the host, in this process; the text of its result."""
    response = client.call(server, tool, arguments, None, lambda _s, _m, _schema: ("decline", None))
    return str(response["content"][0]["text"])


def servers() -> dict[str, dict[str, Any]]:
    """The servers the host runs, by name."""
    status = host_status()
    assert status is not None
    return {s["name"]: s for s in status["servers"]}


def test_only_the_unused_server_stops_and_starts_again_on_its_next_use(data_dir: Path) -> None:
    daemon = host_status()
    assert daemon is not None
    assert call("alpha", "echo", text="warm") == "warm"
    tested = client.probe("test", "gamma")  # a test is a use too (in this process: no gap of seconds of imports)
    assert tested is not None and tested["result"]["success"]
    assert set(servers()) == {"alpha", "gamma"}
    [alpha_pid], [gamma_pid] = server_pids(data_dir, "basic.py"), server_pids(data_dir, "features.py")

    seen: dict[str, dict[str, Any]] = {}

    def gamma_stopped_while_alpha_is_used() -> bool:
        assert call("alpha", "echo", text="still here") == "still here"
        seen.clear()
        seen.update(servers())
        return "gamma" not in seen

    assert anyio.run(poll, gamma_stopped_while_alpha_is_used, 30.0)
    assert seen["alpha"]["state"] == "connected" and seen["alpha"]["unusedSeconds"] < 2
    assert anyio.run(poll, lambda: not server_pids(data_dir, "features.py"))
    assert server_pids(data_dir, "basic.py") == [alpha_pid]  # warm all along: never restarted

    assert call("gamma", "shout", message="back") == "shouted"
    [again] = server_pids(data_dir, "features.py")
    assert again != gamma_pid

    # Nobody uses anything now: both servers stop, then the daemon exits (no client attached).
    assert anyio.run(poll, lambda: not process_alive(daemon["pid"]), 30.0)
    assert anyio.run(poll, lambda: not elftia_processes(data_dir))


def test_a_client_following_a_servers_log_holds_it(data_dir: Path) -> None:
    follower = subprocess.Popen(
        [sys.executable, "-m", "elftia_desktop.cli", "logs", "alpha", "--follow"],
        env=gateway_env(data_dir),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert follower.stdout is not None
    try:
        assert follower.stdout.readline().startswith("[protocol]")  # the log so far: alpha was started for it
        tested = client.probe("test", "gamma")
        assert tested is not None and tested["result"]["success"]
        assert anyio.run(poll, lambda: "gamma" not in servers(), 30.0)  # unused: stopped
        assert servers()["alpha"]["unusedSeconds"] == 0  # unused too, but followed
        assert call("alpha", "stderr", line="to the follower") == "written"
        while (line := follower.stdout.readline()) != "to the follower\n":
            assert line.startswith("[protocol]"), line
    finally:
        follower.send_signal(signal.SIGINT)
        _out, err = follower.communicate(timeout=30)
    assert follower.returncode == 130, err
    assert anyio.run(poll, lambda: "alpha" not in {s["name"] for s in (host_status() or {}).get("servers", [])}, 30.0)


if sys.platform != "linux":  # pragma: no cover
    pytestmark.append(pytest.mark.skip(reason="/proc"))
