"""The daemon's idle stop per server: the unused server stops, the used one stays warm, a follower holds its server.

The rules on a clock the test advances (a call in flight holds its server however long) are
tests/host/test_idle_clock.py; here the real daemon stops its real servers after a real 2 s.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from elftia_desktop.host import attach, client
from tests.gateway.gateway_helpers import REPO, add_stdio, gateway_env, open_catalog, poll, process_alive
from tests.helpers.processes import interrupt
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


def test_an_unused_server_stops_and_starts_again_on_its_next_use(data_dir: Path) -> None:
    """Real processes on the real 2 s: nothing here must be seen within the idle time (a loaded machine
    may take longer than that between two lines); which server stays warm is test_idle_clock.py's."""
    daemon = host_status()
    assert daemon is not None
    sock, _reply = attach.connect("command", start=False)  # an attached client: the daemon does not exit meanwhile
    with sock:
        tested = client.probe("test", "gamma")  # in this process: no gap of seconds of imports
        assert tested is not None and tested["result"]["success"]
        assert anyio.run(poll, lambda: "gamma" not in servers() and not server_pids(data_dir, "features.py"), 30.0)
        assert "gamma unused for" in (data_dir / "host.log").read_text()  # stopped for being idle, not a crash
        assert call("gamma", "shout", message="back") == "shouted"  # started again on its next use
        again = host_status()
        assert again is not None and again["pid"] == daemon["pid"]  # by the same daemon
    # No client and nothing used now: the server stops, then the daemon exits.
    assert anyio.run(poll, lambda: not process_alive(daemon["pid"]), 30.0)
    assert anyio.run(poll, lambda: not elftia_processes(data_dir))


def test_a_client_following_a_servers_log_holds_it(data_dir: Path) -> None:
    follower = subprocess.Popen(
        [sys.executable, "-m", "elftia_desktop.cli", "logs", "alpha", "--follow"],
        env=gateway_env(data_dir) | {"PYTHONFAULTHANDLER": "1"},
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
        _out, err = interrupt(follower)
    assert follower.returncode == 130, err
    assert anyio.run(poll, lambda: "alpha" not in {s["name"] for s in (host_status() or {}).get("servers", [])}, 30.0)


if sys.platform != "linux":  # pragma: no cover
    pytestmark.append(pytest.mark.skip(reason="/proc"))
