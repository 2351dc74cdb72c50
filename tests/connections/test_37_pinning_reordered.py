"""Issue 37, item 1: a description that lists a set in another order every time is not a rug pull.

``tests.servers.set_order`` lists ``run_command`` with its commands rotated on every listing (as
``cli-mcp-server`` builds them from a Python set). Each ``elftia-mcp`` command starts the server
anew: every call must run, ``review`` must say "reordered" (not held), and a description that gains
a command is still held back until ``review --all``, after which the tool runs again.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.test_servers import cli

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, str(ROOT / "tests" / "servers" / "set_order.py")]
ARGS = ("--args", '{"command": "ls"}')
pytestmark = pytest.mark.usefixtures("memory_servers")


def test_a_reordered_list_is_served_and_a_new_item_is_held(isolated_data_dir: Path, tmp_path: Path) -> None:
    """Every command loads a fresh copy of the set-order server (in memory: ``ORDER_STATE`` only steers it); a
    real process per command is ``test_37_review_through_host``'s ``--no-daemon`` runs."""
    state = tmp_path / "listings"
    assert cli("add", "cli", "--trust", f"--env=ORDER_STATE={state}", "--", *SERVER).returncode == 0
    for _ in range(2):  # each a new server, each listing in another order
        called = cli("call", "cli", "run_command", "--yes", *ARGS, "--no-daemon")
        assert called.returncode == 0, called.stderr
        assert called.stdout.strip() == "ran ls"
    assert int(state.read_text()) >= 2
    review = cli("review", "cli")
    assert "reordered    run_command: its description lists the same items in another order" in review.stdout
    assert json.loads(cli("review", "cli", "--json").stdout)["held"] == []

    state.write_text("grown")  # "rm" joins the list: new content, held back
    held = cli("call", "cli", "run_command", "--yes", *ARGS, "--no-daemon")
    assert held.returncode == 1 and "held back until you review it" in held.stderr
    assert cli("review", "cli", "--all").stdout.strip() == "Accepted: run_command."
    after = cli("call", "cli", "run_command", "--yes", *ARGS, "--no-daemon")
    assert after.returncode == 0 and after.stdout.strip() == "ran ls"
