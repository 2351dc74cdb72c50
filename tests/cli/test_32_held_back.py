"""Issue 32: a tool held back for review does not silently vanish from ``elftia-mcp tools``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_servers import cli
from tests.core.test_trust_fingerprint import SERVER

pytestmark = pytest.mark.usefixtures("memory_servers")  # RUG_STATE steers rug_pull in memory too


def test_tools_names_the_held_back_tool_and_the_review_command(isolated_data_dir: Path, tmp_path: Path) -> None:
    state = tmp_path / "listings"
    assert cli("add", "rug", "--trust", f"--env=RUG_STATE={state}", "--", *SERVER).returncode == 0
    first = cli("tools", "--server", "rug")
    assert first.returncode == 0 and "held back" not in first.stderr  # the first listing pins the tools

    second = cli("tools", "--server", "rug")  # from now on the weather tool's description changed
    assert second.returncode == 0, second.stderr
    assert "weather" not in second.stdout
    assert (
        "rug: 1 tool held back, changed since you trusted it (weather); review with: elftia-mcp review rug"
        in second.stderr
    )
    as_json = cli("tools", "--server", "rug", "--json")
    assert "weather" not in [t["name"] for t in json.loads(as_json.stdout)["tools"]]
    assert "elftia-mcp review rug" in as_json.stderr  # said beside the JSON, not inside it


def test_test_and_list_count_the_held_back_tools(isolated_data_dir: Path, tmp_path: Path) -> None:
    state = tmp_path / "listings"
    assert cli("add", "rug", "--trust", f"--env=RUG_STATE={state}", "--", *SERVER).returncode == 0
    first = cli("test", "rug")
    assert first.returncode == 0 and "held back" not in first.stdout + first.stderr  # pins the tools
    assert "held back" not in cli("list").stderr

    second = cli("test", "rug")  # the weather tool's description changed since
    assert second.returncode == 0, second.stderr
    assert ", 1 held back for review" in second.stdout.splitlines()[0]
    note = "rug: 1 tool held back, changed since you trusted it (weather); review with: elftia-mcp review rug"
    assert note in second.stderr
    assert "weather" not in json.loads(cli("test", "rug", "--json").stdout)["tools"]

    listed = cli("list")
    assert listed.returncode == 0 and "rug" in listed.stdout
    assert note in listed.stderr  # from the pins file: nothing started
