"""Issue 11: quitting the real app (SIGTERM, SIGINT, closing the window, Ctrl+Q) leaves no server
process, even one that ignores SIGTERM and outlives its stdin, or one that stays busy forever
(the final SIGKILL of the quit path); a killed app's leftover is stopped by the next start of the app.

Each test runs ``elftia_desktop.app.main`` in a subprocess (``tests/app/app_driver.py`` clicks the
server card's Test button, as a user would) on a data folder of its own.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.processes import (
    REPO,
    add_stubborn_server,
    alive,
    cmdline,
    kill_group_now,
    live_members,
    runtime_records,
    wait_for,
)

DRIVER = Path(__file__).with_name("app_driver.py")
pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
    pytest.mark.timeout(180),
]


class RunningApp:
    """The app in a subprocess, its data folder and the server group it started."""

    def __init__(self, data_dir: Path, server: str = "stubborn") -> None:
        env = os.environ | {"ELFTIA_DATA_DIR": str(data_dir), "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
        self.runtime = data_dir / "runtime"
        self.process = subprocess.Popen(
            [sys.executable, str(DRIVER), server],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=env,
        )

    def wait_connected(self) -> int:
        """Wait for the driver's CONNECTED; the server's process group."""
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line.strip() == "CONNECTED", f"app said {line!r}: {self.stderr()}"
        [record] = runtime_records(self.runtime)
        pgid = int(str(record["pgid"]))
        assert live_members(pgid), "the server group should be running"
        return pgid

    def send(self, line: str) -> None:
        """A command for the driver on its stdin."""
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def stderr(self) -> str:
        """What the app wrote on stderr (once it ended)."""
        if self.process.poll() is None:
            return ""
        assert self.process.stderr is not None
        return self.process.stderr.read()


@pytest.fixture
def app(tmp_path: Path) -> Iterator[RunningApp]:
    """The app with a stubborn server added and trusted."""
    add_stubborn_server(tmp_path)
    running = RunningApp(tmp_path)
    yield running
    if running.process.poll() is None:
        running.process.kill()
        running.process.wait(timeout=30)
    for record in runtime_records(running.runtime):
        kill_group_now(int(str(record["pgid"])))


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "close", "ctrl+q"])
def test_quitting_leaves_no_process_of_the_servers_group(app: RunningApp, how: str) -> None:
    pgid = app.wait_connected()
    try:
        if how.startswith("SIG"):
            app.process.send_signal(getattr(signal, how))
        else:
            app.send(how)
        code = app.process.wait(timeout=60)
        assert code == 0, app.stderr()
        assert live_members(pgid) == []
        assert list(app.runtime.glob("*.json")) == []  # a clean exit removes the runtime file
    finally:
        kill_group_now(pgid)


def test_a_server_busy_forever_after_eof_is_killed_at_the_end_of_the_quit(tmp_path: Path) -> None:
    spin = REPO / "tests" / "servers" / "spin_on_eof.py"
    env = os.environ | {"ELFTIA_DATA_DIR": str(tmp_path), "PYTHONPATH": str(REPO)}
    add = [sys.executable, "-m", "elftia_desktop.cli", "add", "spin", "--trust", "--", sys.executable, str(spin)]
    subprocess.run(add, check=True, capture_output=True, cwd=REPO, env=env, timeout=60)
    app = RunningApp(tmp_path, server="spin")
    pgid = app.wait_connected()
    try:
        app.process.send_signal(signal.SIGTERM)
        assert app.process.wait(timeout=60) == 0, app.stderr()
        assert live_members(pgid) == []
        assert list(app.runtime.glob("*.json")) == []
    finally:
        if app.process.poll() is None:
            app.process.kill()
            app.process.wait(timeout=30)
        kill_group_now(pgid)


def test_the_next_start_stops_what_a_killed_app_left_after_the_leader_execd(app: RunningApp, tmp_path: Path) -> None:
    pgid = app.wait_connected()
    try:
        app.process.send_signal(signal.SIGKILL)
        app.process.wait(timeout=30)
        # Its stdin closed with the app: the server ended and the wrapper exec'd into sleep.
        assert wait_for(lambda: cmdline(pgid)[:1] == ["sleep"]), cmdline(pgid)
        assert alive(pgid)

        again = RunningApp(tmp_path, server="none")  # the services start with the window
        try:
            assert wait_for(lambda: not live_members(pgid), limit=60)
            again.send("close")
            assert again.process.wait(timeout=60) == 0
        finally:
            if again.process.poll() is None:
                again.process.kill()
                again.process.wait(timeout=30)
        assert list(app.runtime.glob("*.json")) == []
    finally:
        kill_group_now(pgid)
