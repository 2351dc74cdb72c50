"""``elftia-mcp`` server list commands (in process: ``tests.helpers.cli_runner``)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.cli_runner import CliResult, run_cli

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, stdin: str | None = None) -> CliResult:
    """``elftia-mcp ARGS`` in process."""
    return run_cli(*args, stdin=stdin)


def test_add_list_update_enable_remove(isolated_data_dir: Path) -> None:
    added = cli("add", "files", "--env", "API_KEY=s3cret", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem")
    assert added.returncode == 0, added.stderr
    assert "Added files (stdio" in added.stdout and "elftia-mcp trust files" in added.stdout
    listed = json.loads(cli("list", "--json").stdout)
    assert listed[0]["config"]["args"] == ["-y", "@modelcontextprotocol/server-filesystem"]
    assert listed[0]["config"]["env"] == {"API_KEY": "${secret:API_KEY}"}
    assert "s3cret" not in (isolated_data_dir / "mcp-config.json").read_text()

    assert cli("disable", "files").stdout.strip() == "files is disabled."
    assert json.loads(cli("list", "--json").stdout)[0]["isActive"] is False
    updated = cli("update", "files", "--name", "docs", "--json")
    assert json.loads(updated.stdout)["server"]["name"] == "docs"
    table = cli("list").stdout
    assert "docs" in table and "npx -y @modelcontextprotocol/server-filesystem" in table
    assert cli("remove", "docs").stdout.strip() == "Removed docs."
    assert json.loads(cli("list", "--json").stdout) == []


def test_bad_input_exits_2_naming_the_field() -> None:
    result = cli("add", "remote", "--type", "http", "--url", "localhost:3000")
    assert result.returncode == 2
    assert 'config.url: "localhost:3000" is not an absolute http(s) URL' in result.stderr
    result = cli("add", "x", "--env", "NOEQUALS", "--command", "npx")
    assert result.returncode == 2 and '--env: expected NAME=VALUE, got "NOEQUALS"' in result.stderr
    missing = cli("remove", "ghost")
    assert missing.returncode == 2 and "No server named 'ghost'" in missing.stderr


def test_add_json_reports_syntax_errors_with_line_and_column() -> None:
    result = cli("add-json", "--json", stdin='{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}')
    assert result.returncode == 2
    error = json.loads(result.stdout)
    assert (error["line"], error["column"]) == (3, 26)
    assert "line 3, column 26" in error["error"]


def test_add_json_adds_each_good_entry_and_reports_bad_ones() -> None:
    text = json.dumps(
        {
            "mcpServers": {
                "time": {"command": "uvx", "args": ["mcp-server-time"]},
                "remote": {"type": "streamableHttp", "url": "https://mcp.example.com/mcp"},
                "broken": {"type": "sse"},
            }
        }
    )
    result = cli("add-json", "--json", stdin=text)
    assert result.returncode == 1
    outcome = json.loads(result.stdout)
    assert [(r["name"], r["success"]) for r in outcome["results"]] == [
        ("time", True),
        ("remote", True),
        ("broken", False),
    ]
    assert "broken: config.url: an SSE server needs a URL" in outcome["results"][2]["error"]
    servers = {s["name"]: s for s in json.loads(cli("list", "--json").stdout)}
    assert servers["remote"]["type"] == "http" and servers["time"]["isTrusted"] is False

    again = json.loads(cli("add-json", "--json", "--on-conflict", "rename", stdin=text).stdout)
    assert [r["name"] for r in again["results"] if r["success"]] == ["time (2)", "remote (2)"]


def test_trust_shows_what_runs_and_needs_yes_without_a_terminal() -> None:
    cli("add", "t", "--", "uvx", "mcp-server-time")
    refused = cli("trust", "t", stdin="")
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert "Command:        uvx" in refused.stdout and "Arguments:      mcp-server-time" in refused.stdout
    trusted = cli("trust", "t", "--yes")
    assert trusted.returncode == 0 and "t is trusted." in trusted.stdout
    assert json.loads(cli("list", "--json").stdout)[0]["isTrusted"] is True
