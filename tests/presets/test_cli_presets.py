"""``elftia-mcp presets``, ``add-preset``, ``deps`` and ``install-dep`` (in process)."""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

from tests.helpers.cli_runner import CliResult, run_cli

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> CliResult:
    """``elftia-mcp ARGS`` in process."""
    return run_cli(*args)


def test_presets_table_and_json() -> None:
    table = cli("presets")
    assert table.returncode == 0 and "filesystem" in table.stdout and "BRAVE_API_KEY" in table.stdout
    listed = json.loads(cli("presets", "--json").stdout)
    assert {"builtin-clock", "github"} <= {p["id"] for p in listed}


def test_add_preset_names_what_is_missing_when_not_on_a_terminal(isolated_data_dir: Path) -> None:
    result = cli("add-preset", "brave-search")
    assert result.returncode == 2 and "--env BRAVE_API_KEY=..." in result.stderr
    result = cli("add-preset", "github", "--json")
    assert result.returncode == 2 and json.loads(result.stdout)["error"].endswith("--value github_token=...")
    assert not (isolated_data_dir / "mcp-config.json").exists()


def test_add_preset_stores_secrets_outside_the_config(isolated_data_dir: Path) -> None:
    added = cli("add-preset", "brave-search", "--env", "BRAVE_API_KEY=bsk-123", "--name", "search", "--json")
    assert added.returncode == 0, added.stderr
    server = json.loads(added.stdout)["server"]
    assert server["name"] == "search" and server["config"]["env"] == {"BRAVE_API_KEY": "${secret:BRAVE_API_KEY}"}
    assert server["isTrusted"] is False
    assert "bsk-123" not in (isolated_data_dir / "mcp-config.json").read_text()
    trusted = cli("add-preset", "filesystem", "--value", "directory=/tmp", "--trust")
    assert trusted.returncode == 0 and "Added Filesystem" in trusted.stdout and "trust" not in trusted.stdout
    bad = cli("add-preset", "filesystem", "--value", "dir=/tmp")
    assert bad.returncode == 2 and "has no value dir" in bad.stderr


def test_deps_reports_python_and_missing_commands() -> None:
    result = cli("deps", sys.executable, "--json")
    assert result.returncode == 0
    assert json.loads(result.stdout)["version"] == platform.python_version()
    missing = cli("deps", "elftia-no-such-program")
    assert missing.returncode == 1 and "missing" in missing.stdout
    table = cli("deps")
    assert table.returncode == 0 and "npx" in table.stdout and "pipx" in table.stdout


def test_install_dep_refuses_what_it_cannot_install() -> None:
    node = cli("install-dep", "node", "--json")
    assert node.returncode == 1 and "Node.js 18 or newer" in json.loads(node.stdout)["instructions"]
    unknown = cli("install-dep", "my-server")
    assert unknown.returncode == 2 and "not a runtime the app knows" in unknown.stderr
