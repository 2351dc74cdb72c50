"""Issue 30 follow-up: ``daemon run --stay`` does not exit when empty (apps given the HTTP URL need a host)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from elftia_desktop.host import attach
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


def test_a_staying_daemon_outlives_a_plain_one_with_the_same_tiny_empty_exit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    staying, asked, plain = tmp_path / "staying", tmp_path / "asked", tmp_path / "plain"
    for folder in (staying, asked, plain):
        folder.mkdir()
    started = cli(staying, "daemon", "start", "--stay", "--idle", TINY_IDLE, "--json")
    assert started.returncode == 0, started.stderr
    stay = json.loads(started.stdout)
    assert stay["started"] and stay["stays"] is True

    first = json.loads(cli(asked, "daemon", "start", "--idle", TINY_IDLE, "--json").stdout)
    assert first["stays"] is False
    monkeypatch.setenv("ELFTIA_DATA_DIR", str(asked))
    sock, _reply = attach.connect("command", start=False)  # a client: it cannot exit before it is asked
    with sock:
        again = json.loads(cli(asked, "daemon", "start", "--stay", "--json").stdout)
    assert not again["started"] and again["pid"] == first["pid"] and again["stays"] is True  # asked to stay

    other = json.loads(cli(plain, "daemon", "start", "--idle", TINY_IDLE, "--json").stdout)
    assert other["started"] and other["stays"] is False
    assert _wait_exit(other["pid"]), "the plain daemon did not exit when empty"
    for folder, pid in ((staying, stay["pid"]), (asked, first["pid"])):
        now = json.loads(cli(folder, "daemon", "status", "--json").stdout)
        assert now["running"] and now["pid"] == pid and now["stays"] is True  # empty for longer, still there
    shown = cli(staying, "daemon", "start", "--stay").stdout
    assert "already running" in shown and "stays until stopped" in shown
    assert "it stays when unused" in cli(staying, "daemon", "status").stdout
