"""Issue 37, item 1 through the pool host: after ``review --all`` every accepted tool runs, with and without it.

The set-order server (``tests.servers.set_order``) lists its commands in another order in every
listing; the host, ``call --no-daemon`` and ``review`` each list it in their own order. Before,
``review --all`` pinned its own order and the host kept refusing the tool. Now a reorder is not a
change, and a real change accepted by ``review --all`` runs through the host and without it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.cli.test_servers import cli

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, str(ROOT / "tests" / "servers" / "set_order.py")]
ARGS = ("--args", '{"command": "pwd"}')
pytestmark = [pytest.mark.daemon, pytest.mark.timeout(600)]


def _runs(*flags: str) -> None:
    called = cli("call", "cli", "run_command", "--yes", *ARGS, *flags)
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == "ran pwd"


def test_review_all_then_calls_through_the_host_and_without(
    isolated_data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Slow by design (about 36 s loaded): a real pool host, and each ``--no-daemon`` command starts the set-order
    server as a process of its own (a new listing order per process is the point: no ``memory_servers`` here)."""
    monkeypatch.delenv("ELFTIA_NO_DAEMON", raising=False)
    state = tmp_path / "listings"
    assert cli("add", "cli", "--trust", f"--env=ORDER_STATE={state}", "--", *SERVER).returncode == 0
    try:
        assert cli("daemon", "start").returncode == 0
        _runs()  # through the host: pinned in its order
        _runs("--no-daemon")  # another process, another order
        state.write_text("grown")  # a new command in the list: held, in the host and without it
        assert cli("test", "cli").returncode == 0  # the host lists the server again
        assert cli("call", "cli", "run_command", "--yes", *ARGS).returncode == 1
        assert cli("call", "cli", "run_command", "--yes", *ARGS, "--no-daemon").returncode == 1
        assert cli("review", "cli", "--all").stdout.strip() == "Accepted: run_command."
        _runs()
        _runs("--no-daemon")
    finally:
        cli("daemon", "stop")
