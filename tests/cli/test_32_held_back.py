"""Issue 32: a tool held back for review does not silently vanish from ``elftia-mcp tools``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_servers import cli
from tests.core.test_trust_fingerprint import SERVER


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
