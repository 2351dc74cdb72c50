"""``elftia-mcp detect | import | export | claude ...`` (in process) in a temporary HOME."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers.cli_runner import CliResult, run_cli

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = Path(__file__).parent / "samples"


def cli(*args: str, home: Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> CliResult:
    """``elftia-mcp ARGS`` in process with ``home`` as HOME and no XDG or Claude config folders."""
    unset: dict[str, str | None] = {"XDG_CONFIG_HOME": None, "XDG_DATA_HOME": None, "CLAUDE_CONFIG_DIR": None}
    return run_cli(*args, env={**(env or {}), "HOME": str(home), **unset}, cwd=cwd or home)


def _cursor_home(home: Path) -> None:
    (home / ".cursor").mkdir()
    shutil.copyfile(SAMPLES / "cursor_mcp.json", home / ".cursor" / "mcp.json")


def test_detect_json_lists_found_files(home: Path) -> None:
    _cursor_home(home)
    shutil.copytree(SAMPLES, home / ".gemini", dirs_exist_ok=True)
    shutil.copyfile(SAMPLES / "gemini_settings.json", home / ".gemini" / "settings.json")
    result = cli("detect", "--json", home=home)
    assert result.returncode == 0, result.stderr
    configs = {c["app"]: c for c in json.loads(result.stdout)["configs"]}
    assert configs["cursor"]["servers"] == ["github", "userjot"]
    assert configs["gemini"]["servers"] == ["pythonTools", "github", "sseServer"]


def test_import_previews_then_imports_with_a_policy(home: Path) -> None:
    _cursor_home(home)
    preview = cli("import", "cursor", home=home)
    assert preview.returncode == 0, preview.stderr
    assert "Nothing imported yet" in preview.stdout and "${env:USERJOT_API_TOKEN}" in preview.stdout
    assert json.loads(cli("list", "--json", home=home).stdout) == []

    done = cli("import", "cursor", "--all", "--json", home=home)
    assert done.returncode == 0, done.stderr
    assert [r["status"] for r in json.loads(done.stdout)["results"]] == ["added", "added"]
    again = json.loads(cli("import", "cursor", "github", "--on-conflict", "rename", "--json", home=home).stdout)
    assert [(r["status"], r["serverName"]) for r in again["results"]] == [("renamed", "github (2)")]
    listed = json.loads(cli("list", "--json", home=home).stdout)
    assert [(r["name"], r["isTrusted"], r["installSource"]) for r in listed] == [
        ("github", False, "unknown"),
        ("userjot", False, "unknown"),
        ("github (2)", False, "unknown"),
    ]


def test_import_errors(home: Path) -> None:
    unknown = cli("import", "notepad", home=home)
    assert unknown.returncode == 2 and "unknown app 'notepad'" in unknown.stderr
    missing = cli("import", "windsurf", "--all", home=home)
    assert missing.returncode == 1 and "No Windsurf config found (looked in:" in missing.stderr
    _cursor_home(home)
    no_such = cli("import", "cursor", "gitlab", home=home)
    assert no_such.returncode == 2 and "Cursor has no server named gitlab (found: github, userjot)" in no_such.stderr
    broken = home / "broken.json"
    broken.write_text('{"mcpServers": {"a": {"command": "x",}}}')
    result = cli("import", "cursor", "--file", str(broken), "--all", "--json", home=home)
    data = json.loads(result.stdout)
    assert result.returncode == 2 and data["success"] is False
    (error,) = data["preview"]["fileErrors"]
    assert (error["line"], error["column"]) == (1, 38) and str(broken) in error["error"]


def test_export_prints_or_writes(home: Path) -> None:
    _cursor_home(home)
    assert cli("import", "cursor", "--all", home=home).returncode == 0
    printed = cli("export", "claude-code", "github", home=home)
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout)["mcpServers"]["github"]["env"] == {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}"
    }
    target = home / "out" / "claude_desktop_config.json"
    written = cli("export", "claude-desktop", "--with-secrets", "--output", str(target), "--json", home=home)
    assert written.returncode == 0, written.stderr
    summary = json.loads(written.stdout)
    assert summary["skipped"] == ["userjot"] and summary["path"] == str(target)
    assert json.loads(target.read_text())["mcpServers"]["github"]["env"] == {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_cursor_secret"
    }
    missing = cli("export", "cursor", "nope", home=home)
    assert missing.returncode == 2 and "No server named 'nope'" in missing.stderr


@pytest.mark.network
def test_claude_push_list_pull(home: Path, claude_env: dict[str, str]) -> None:
    project = home / "proj"
    project.mkdir()
    env = claude_env | {"HOME": str(home)}
    added = cli("add", "clock", "--", "uvx", "mcp-server-time", home=home, env=env)
    assert added.returncode == 0, added.stderr
    pushed = cli("claude", "push", "clock", "--as", "clock-time", "--json", home=home, env=env, cwd=project)
    assert pushed.returncode == 0, pushed.stderr
    listed = json.loads(cli("claude", "list", "--json", home=home, env=env, cwd=project).stdout)
    assert listed["claude"]["version"] and [s["name"] for s in listed["servers"]] == ["clock-time"]
    pulled = json.loads(cli("claude", "pull", "--json", home=home, env=env, cwd=project).stdout)
    assert [(r["name"], r["status"]) for r in pulled["results"]] == [("clock-time", "added")]
    removed = cli("claude", "remove", "clock-time", home=home, env=env, cwd=project)
    assert removed.returncode == 0 and "Removed clock-time from Claude Code." in removed.stdout
    failed = cli("claude", "remove", "clock-time", "--json", home=home, env=env, cwd=project)
    assert failed.returncode == 1 and "No MCP server named" in json.loads(failed.stdout)["error"]
