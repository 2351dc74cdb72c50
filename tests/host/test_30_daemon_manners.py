"""Issue 30: the daemon's manners: it says once that it started, and ``daemon status`` figures are right."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from elftia_desktop.host import client
from tests.gateway.gateway_helpers import add_stdio, open_catalog
from tests.host.host_helpers import cli

pytestmark = pytest.mark.daemon


@pytest.fixture
def data_dir(isolated_data_dir: Path) -> Path:
    """alpha (basic, works) and broken (exits with code 3 before serving)."""
    catalog = open_catalog(isolated_data_dir)
    add_stdio(catalog, "alpha", "basic")
    add_stdio(catalog, "broken", "exit3")
    return isolated_data_dir


def test_the_command_that_starts_the_daemon_says_so_once(data_dir: Path) -> None:
    first = cli(data_dir, "call", "alpha", "echo", "--args", '{"text": "one"}', process=True)
    assert first.returncode == 0, first.stderr
    notes = [line for line in first.stderr.splitlines() if "started the background pool host" in line]
    assert len(notes) == 1
    assert "exits 60 s after" in notes[0] and "elftia-mcp daemon stop" in notes[0]
    second = cli(data_dir, "call", "alpha", "echo", "--args", '{"text": "two"}', process=True)
    assert second.returncode == 0 and "started the background pool host" not in second.stderr  # it ran already


def test_status_lists_failed_servers_apart_and_counts_unused_time_from_the_hosts_start(data_dir: Path) -> None:
    assert cli(data_dir, "call", "alpha", "echo", "--args", '{"text": "x"}').returncode == 0
    assert cli(data_dir, "call", "broken", "never").returncode != 0
    status = client.control("status")
    assert status is not None
    assert [s["name"] for s in status["servers"]] == ["alpha"]  # running ones only
    assert [s["name"] for s in status["failedServers"]] == ["broken"]
    host_age = time.time() - status["startedAt"]
    assert 0 <= status["servers"][0]["unusedSeconds"] <= host_age + 1  # never more than the host has lived
    shown = cli(data_dir, "daemon", "status")
    assert "servers that failed to start (1): broken" in shown.stdout
    listed = json.loads(cli(data_dir, "daemon", "status", "--json").stdout)
    assert listed["failedServers"][0]["state"] == "error"
