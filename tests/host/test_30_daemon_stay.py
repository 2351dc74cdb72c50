"""Issue 30 follow-up: ``daemon run --stay`` does not exit when empty (apps given the HTTP URL need a host)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.host.host_helpers import cli

pytestmark = pytest.mark.daemon

TINY_IDLE = "0.3"
"""Seconds of emptiness after which a plain daemon exits (``--idle`` caps the 60 s)."""


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] == "Z"
    except OSError:
        return True


def _wait_exit(pid: int, limit: float = 120.0) -> bool:
    """Wait until process ``pid`` has exited (the event the test is about); False after ``limit`` s."""
    deadline = time.monotonic() + limit
    while not _gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_staying_daemon_outlives_a_plain_one_with_the_same_tiny_empty_exit(tmp_path: Path) -> None:
    staying, plain = tmp_path / "staying", tmp_path / "plain"
    staying.mkdir()
    plain.mkdir()
    started = cli(staying, "daemon", "start", "--stay", "--idle", TINY_IDLE, "--json")
    assert started.returncode == 0, started.stderr
    stay = json.loads(started.stdout)
    assert stay["started"] and stay["stays"] is True
    other = json.loads(cli(plain, "daemon", "start", "--idle", TINY_IDLE, "--json").stdout)
    assert other["started"] and other["stays"] is False
    assert _wait_exit(other["pid"]), "the plain daemon did not exit when empty"
    now = json.loads(cli(staying, "daemon", "status", "--json").stdout)
    assert now["running"] and now["pid"] == stay["pid"] and now["stays"] is True  # empty for longer, still there
    shown = cli(staying, "daemon", "start", "--stay").stdout
    assert "already running" in shown and "stays until stopped" in shown
