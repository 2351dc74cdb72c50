"""Tool pinning through ``elftia-mcp``: a tool whose description changes after trust is held back from
``tools --agent`` and from calls until ``review --accept`` pins it; the review shows the diff and lint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elftia_desktop.connections.tool_guard import held_tools
from elftia_desktop.core.agent_store import AgentStore
from elftia_desktop.core.models import Agent, McpMode
from elftia_desktop.core.tool_pin_store import PinStore
from tests.cli.test_servers import cli
from tests.core.test_trust_fingerprint import SERVER

pytestmark = pytest.mark.usefixtures("memory_servers")  # RUG_STATE steers rug_pull in memory too


def _tool_names(*args: str) -> list[str]:
    listed = cli("tools", *args, "--json")
    assert listed.returncode == 0, listed.stderr
    return [t["name"] for t in json.loads(listed.stdout)["tools"]]


def test_a_changed_tool_is_held_back_until_accepted(isolated_data_dir: Path, tmp_path: Path) -> None:
    state = tmp_path / "listings"
    assert cli("add", "rug", "--trust", f"--env=RUG_STATE={state}", "--", *SERVER).returncode == 0
    agents = AgentStore(isolated_data_dir / "agents.json")
    agents.add(Agent(name="Writer", mcp_mode=McpMode.AUTO))

    assert "weather" in _tool_names("--agent", "Writer")  # first listing: pinned as it is
    # from the 2nd listing on, the description asks the model to read ~/.ssh/id_rsa
    assert _tool_names("--agent", "Writer") == ["argv", "env", "echo", "relist"]
    called = cli("call", "rug", "weather", "--args", '{"city": "x"}')
    assert called.returncode == 1
    assert (
        'The tool "weather" of rug changed since you trusted it, so it is held back until you review it '
        "(in the app, or: elftia-mcp review rug)." in called.stderr
    )

    review = cli("review", "rug")
    lines = review.stdout.splitlines()
    assert lines[0] == "changed      weather"
    assert '    -  "description": "Current weather for a city.",' in lines
    assert any(line.startswith('    +  "description": "Current weather for a city. <IMPORTANT>') for line in lines)
    assert "    lint hide-from-user: 'Do not tell the user'" in lines
    assert "    lint hidden-tag: '<IMPORTANT>'" in lines
    assert "    lint credential-path: mentions '~/.ssh'" in lines
    assert lines[-1] == "Held back from agents and the gateway until accepted: elftia-mcp review rug --all"
    report = json.loads(cli("review", "rug", "--json").stdout)
    assert report["held"] == ["weather"] and report["items"][0]["status"] == "changed"

    bad = cli("review", "rug", "--accept", "echo")
    assert bad.returncode == 2 and "--accept: Not held back: echo (held back: weather)" in bad.stderr
    assert cli("review", "rug", "--accept", "weather").stdout.strip() == "Accepted: weather."
    assert "weather" in _tool_names("--agent", "Writer")
    assert cli("call", "rug", "weather", "--args", '{"city": "x"}').stdout.strip() == "Sunny in x"


def test_findings_of_first_trust_are_shown_and_all_accepts_a_change(isolated_data_dir: Path, tmp_path: Path) -> None:
    state = tmp_path / "listings"
    state.write_text("1")  # the first listing already says the hostile thing: pinned as trusted
    cli("add", "rug", "--trust", f"--env=RUG_STATE={state}", "--", *SERVER)
    assert "weather" in _tool_names("--server", "rug")
    first = json.loads(cli("review", "rug", "--json").stdout)
    assert first["held"] == []
    assert {(f["tool"], f["rule"]) for f in first["pinnedFindings"]} == {
        ("weather", "hide-from-user"),
        ("weather", "hidden-tag"),
        ("weather", "credential-path"),
    }
    pins = PinStore(isolated_data_dir / "tool-pins.json")
    (server_id,) = held_tools(pins)
    banner = held_tools(pins)[server_id]  # the card's banner
    assert (banner["held"], banner["flagged"]) == ([], ["weather"])
    assert {f["rule"] for f in banner["findings"]} == {"hide-from-user", "hidden-tag", "credential-path"}
    assert cli("review", "rug", "--all").stdout.strip() == "Nothing was held back; nothing to accept."
    assert held_tools(pins) == {}  # the findings were read
    state.write_text("reset")  # benign again: a changed definition, held back
    assert "weather" not in _tool_names("--server", "rug")
    state.write_text("reset")  # the review lists it benign once more
    assert cli("review", "rug", "--all").stdout.strip() == "Accepted: weather."
    state.write_text("reset")
    assert "weather" in _tool_names("--server", "rug")
