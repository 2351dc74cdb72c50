"""The claude CLI bridge against the real CLI (npm ``@anthropic-ai/claude-code``) in a temporary HOME."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.models import McpServerInput, McpServerRecord
from elftia_desktop.integrations.claude_cli import (
    ClaudeCli,
    ClaudeCliError,
    ClaudeCliMissing,
    ClaudeServer,
    parse_get_output,
)

TOKEN_SERVER = Path(__file__).parent / "token_server.py"
TIMEOUT = 90.0


def _cli(env: dict[str, str], cwd: Path) -> ClaudeCli:
    cwd.mkdir(exist_ok=True)
    return ClaudeCli(env=env, cwd=cwd, timeout=TIMEOUT)


def _add(catalog: ServerCatalog, **fields: object) -> McpServerRecord:
    record = catalog.add(McpServerInput.model_validate(fields))
    assert record is not None
    return record


@pytest.mark.network
def test_detect_reports_path_and_version(claude_env: dict[str, str], claude_bin: Path, tmp_path: Path) -> None:
    info = asyncio.run(_cli(claude_env, tmp_path / "proj").detect())
    assert Path(info.path) == claude_bin
    assert info.version[0].isdigit() and info.version.count(".") >= 2


@pytest.mark.network
def test_push_a_server_with_a_secret_and_read_it_back(
    claude_env: dict[str, str], catalog: ServerCatalog, tmp_path: Path
) -> None:
    """Claude Code starts the pushed server only if command, args and the secret env all arrived."""
    record = _add(
        catalog,
        name="token-echo",
        config={"command": sys.executable, "args": [str(TOKEN_SERVER), "s3cret-v"], "env": {"ECHO_TOKEN": "s3cret-v"}},
    )
    assert record.config.env == {"ECHO_TOKEN": "${secret:ECHO_TOKEN}"}
    cli = _cli(claude_env, tmp_path / "proj")

    async def run() -> tuple[dict[str, object], list[ClaudeServer]]:
        sent = await cli.add(record, catalog.vault, scope="user", with_secrets=True)
        assert sent.data["mcpServers"]["token-echo"]["env"] == {"ECHO_TOKEN": "s3cret-v"}
        return await cli.get("token-echo"), await cli.list_servers()

    got, listed = asyncio.run(run())
    assert got["name"] == "token-echo"
    assert str(got["scope"]).startswith("User config")
    assert "Connected" in str(got["status"]) and "Failed" not in str(got["status"])
    (row,) = listed
    assert row.as_json() == {
        "name": "token-echo",
        "scope": "user",
        "runs": f"{sys.executable} {TOKEN_SERVER} s3cret-v",
        "source": str(Path(claude_env["HOME"]) / ".claude.json"),
        "transport": "stdio",
    }


@pytest.mark.network
def test_push_with_placeholders_leaves_the_secret_out(
    claude_env: dict[str, str], catalog: ServerCatalog, tmp_path: Path
) -> None:
    record = _add(
        catalog,
        name="token-echo",
        config={"command": sys.executable, "args": [str(TOKEN_SERVER), "s3cret-v"], "env": {"ECHO_TOKEN": "s3cret-v"}},
    )
    cli = _cli(claude_env, tmp_path / "proj")
    asyncio.run(cli.add(record, catalog.vault, scope="user"))
    stored = json.loads((Path(claude_env["HOME"]) / ".claude.json").read_text())
    assert stored["mcpServers"]["token-echo"]["env"] == {"ECHO_TOKEN": "${ECHO_TOKEN}"}
    assert 's3cret-v"' not in json.dumps(stored["mcpServers"]["token-echo"]["env"])
    got = asyncio.run(cli.get("token-echo"))
    assert "Failed" in str(got["status"])  # the variable is not set, so the server refuses to start


@pytest.mark.network
def test_http_server_in_local_scope_then_remove(
    claude_env: dict[str, str], catalog: ServerCatalog, tmp_path: Path
) -> None:
    record = _add(
        catalog,
        name="remote",
        type="http",
        config={"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer tok-1", "X-Team": "a"}},
    )
    project = tmp_path / "proj"
    cli = _cli(claude_env, project)

    async def run() -> dict[str, object]:
        await cli.add(record, catalog.vault, scope="local", with_secrets=True, name="remote-api")
        got = await cli.get("remote-api")
        rows = await cli.list_servers()
        assert [(r.name, r.scope, r.transport) for r in rows] == [("remote-api", "local", "http")]
        other = await _cli(claude_env, tmp_path / "elsewhere").list_servers()
        assert other == []  # local scope belongs to the project folder
        await cli.remove("remote-api", "local")
        assert await cli.list_servers() == []
        return got

    got = asyncio.run(run())
    assert got["type"] == "http" and got["url"] == "http://127.0.0.1:9/mcp"
    assert got["headers"] == {"Authorization": "Bearer tok-1", "X-Team": "a"}
    assert str(got["scope"]).startswith("Local config")


@pytest.mark.network
def test_pull_imports_claude_servers_untrusted(
    claude_env: dict[str, str], catalog: ServerCatalog, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    cli = _cli(claude_env, project)
    env_entry = {
        "type": "stdio",
        "command": "npx",
        "args": ["-y", "airtable-mcp-server"],
        "env": {"AIRTABLE_API_KEY": "pat-1"},
    }
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"shared": {"command": "uvx", "args": ["mcp-server-time"]}}})
    )

    async def run() -> None:
        await cli.run("mcp", "add-json", "--scope", "user", "airtable", json.dumps(env_entry))
        outcomes = await cli.pull(catalog)
        assert [(o.name, o.status) for o in outcomes] == [("airtable", "added"), ("shared", "added")]
        again = await cli.pull(catalog, on_conflict="skip")
        assert [o.status for o in again] == ["skipped", "skipped"]

    asyncio.run(run())
    airtable = catalog.find("airtable")
    assert airtable.is_trusted is False and airtable.install_source == "unknown"
    assert airtable.config.env == {"AIRTABLE_API_KEY": "${secret:AIRTABLE_API_KEY}"}
    assert catalog.vault.resolve(airtable)[0] == {"AIRTABLE_API_KEY": "pat-1"}
    shared = catalog.find("shared")
    assert (shared.scope.value, shared.project_path) == ("local", str(project))


@pytest.mark.network
def test_failures_carry_the_cli_message(claude_env: dict[str, str], tmp_path: Path) -> None:
    cli = _cli(claude_env, tmp_path / "proj")
    with pytest.raises(ClaudeCliError, match='claude has no MCP server named "nope"'):
        asyncio.run(cli.get("nope"))
    with pytest.raises(ClaudeCliError, match=r"'claude mcp remove nope' failed \(exit code 1\): No MCP server named"):
        asyncio.run(cli.remove("nope"))


@pytest.mark.network
def test_exported_claude_code_file_is_accepted_by_add_json(
    claude_env: dict[str, str], catalog: ServerCatalog, tmp_path: Path
) -> None:
    from elftia_desktop.integrations.exporter import export_servers

    records = [
        _add(catalog, name="a", config={"command": "npx", "args": ["-y", "x"], "env": {"K": "v"}, "timeout": 20}),
        _add(catalog, name="b", type="sse", config={"url": "http://127.0.0.1:9/sse"}),
    ]
    data = export_servers(records, "claude-code", catalog.vault).data
    cli = _cli(claude_env, tmp_path / "proj")

    async def run() -> None:
        for name, entry in data["mcpServers"].items():
            await cli.run("mcp", "add-json", "--scope", "user", name, json.dumps(entry))

    asyncio.run(run())
    stored = json.loads((Path(claude_env["HOME"]) / ".claude.json").read_text())["mcpServers"]
    assert stored == data["mcpServers"]


def test_missing_cli_says_how_to_install(tmp_path: Path) -> None:
    cli = ClaudeCli(env={"PATH": str(tmp_path), "HOME": str(tmp_path)}, cwd=tmp_path)
    assert cli.executable is None
    with pytest.raises(ClaudeCliMissing, match="npm install -g @anthropic-ai/claude-code"):
        asyncio.run(cli.detect())


def test_a_hanging_cli_is_killed_at_the_timeout(tmp_path: Path) -> None:
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\nsleep 30\n")
    fake.chmod(0o755)
    cli = ClaudeCli(executable=str(fake), cwd=tmp_path, timeout=0.5)
    with pytest.raises(ClaudeCliError, match=r"'claude --version' did not finish within 0.5 s"):
        asyncio.run(cli.detect())


def test_parse_get_output() -> None:
    text = (
        "srv:\n  Scope: User config (available in all your projects)\n  Status: ✘ Failed to connect\n"
        "  Type: stdio\n  Command: npx\n  Args: -y pkg\n  Environment:\n    A=1\n    B=x=y\n\n"
        "To remove this server, run: claude mcp remove srv -s user"
    )
    assert parse_get_output(text) == {
        "name": "srv",
        "scope": "User config (available in all your projects)",
        "status": "✘ Failed to connect",
        "type": "stdio",
        "command": "npx",
        "args": "-y pkg",
        "environment": {"A": "1", "B": "x=y"},
    }
