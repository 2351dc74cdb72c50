"""The real desktop app as the pool host: an app attached to it keeps its server when the window quits.

The window is ``elftia_desktop.app.main`` in a subprocess (``tests/app/app_driver.py`` clicks the
server's Test button); the app is a pretend app (the SDK's client on ``elftia-mcp serve``). A
SIGTERM cannot ask, so the window hands the pool to a daemon (the saved choice is "ask").
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.app.test_quit_leaves_no_server import RunningApp
from tests.gateway.gateway_helpers import add_stdio, open_catalog
from tests.helpers.pretend_app import PretendApp
from tests.host.host_helpers import cli, elftia_processes, host_status, server_pids

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
    pytest.mark.timeout(240),
]


def wait_until(check: Any, limit: float = 60.0) -> Any:
    """Poll ``check()`` every 50 ms until it is truthy (processes send no events); its last value."""
    deadline = time.monotonic() + limit
    while not (value := check()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return value


def hosted_by(kind: str) -> Any:
    """A check: the data folder's host is a ``kind`` (its status)."""
    return lambda: (status := host_status()) is not None and status["hostedBy"] == kind and status


def test_the_window_hosts_and_hands_its_pool_to_a_daemon_when_it_quits(isolated_data_dir: Path) -> None:
    data_dir = isolated_data_dir
    add_stdio(open_catalog(data_dir), "alpha", "basic")
    window = RunningApp(data_dir, server="alpha")
    claude: PretendApp | None = None
    try:
        window.wait_connected()
        hosting = wait_until(hosted_by("window"))
        assert hosting and hosting["pid"] == window.process.pid
        claude = PretendApp(data_dir, "Claude Code", "2.1.4")
        assert claude.call("alpha__echo", {"text": "to the window"}) == "RESULT to the window"
        assert len(server_pids(data_dir, "basic.py")) == 1  # the window's Test and the app share it
        window.process.send_signal(signal.SIGTERM)
        assert window.process.wait(timeout=60) == 0, window.stderr()
        daemon = wait_until(hosted_by("daemon"))
        assert daemon, "a daemon should have taken the pool over"
        assert claude.call("alpha__echo", {"text": "to the daemon"}) == "RESULT to the daemon"
        assert len(server_pids(data_dir, "basic.py")) == 1
        names = [c["clientName"] for c in (host_status() or {}).get("clients", [])]
        assert "Claude Code" in names
    finally:
        if claude is not None:
            claude.close()
        if window.process.poll() is None:
            window.process.kill()
            window.process.wait(timeout=30)
    assert cli(data_dir, "daemon", "stop").returncode == 0
    assert wait_until(lambda: not elftia_processes(data_dir)), elftia_processes(data_dir)
