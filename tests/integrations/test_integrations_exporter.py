"""Export to each format, then import the file again: nothing the format can hold is lost."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.errors import JsonInputError
from elftia_desktop.core.models import McpServerInput, McpServerRecord
from elftia_desktop.core.secrets import SecretVault
from elftia_desktop.integrations.detector import ConfigLocation, read_config
from elftia_desktop.integrations.exporter import export_servers, write_export
from elftia_desktop.integrations.importer import apply_import, preview_import


def _add(catalog: ServerCatalog, **fields: Any) -> McpServerRecord:
    record = catalog.add(McpServerInput.model_validate(fields))
    assert record is not None
    return record


@pytest.fixture
def ours(catalog: ServerCatalog) -> list[McpServerRecord]:
    """Servers of every kind, with secrets in env and headers and a plain placeholder."""
    return [
        _add(
            catalog,
            name="github",
            config={
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-github", "--flag=a b"],
                "env": {"GITHUB_TOKEN": "ghp_real_secret", "LOG_LEVEL": "debug", "HOME_DIR": "${env:HOME}"},
                "timeout": 90,
            },
        ),
        _add(
            catalog,
            name="remote",
            type="http",
            config={
                "url": "https://mcp.example.com/mcp",
                "headers": {"Authorization": "Bearer tok-123", "X-Team": "a"},
            },
        ),
        _add(catalog, name="events", type="sse", config={"url": "http://127.0.0.1:8931/sse"}),
    ]


def _launch(record: McpServerRecord, vault: SecretVault) -> dict[str, Any]:
    env, headers = vault.resolve(record)
    timeout = record.config.timeout.call if record.config.timeout else None
    return {
        "type": record.type.value,
        "command": record.config.command,
        "args": record.config.args,
        "cwd": record.config.cwd,
        "url": record.config.url,
        "env": env,
        "headers": headers,
        "timeout": timeout,
    }


def _reimport(fmt: str, path: Path, tmp_path: Path) -> ServerCatalog:
    fresh = ServerCatalog(ConfigStore(tmp_path / "fresh" / "mcp-config.json"), SecretVault())
    config = read_config(ConfigLocation(fmt, path))
    assert config is not None and config.error is None, config and config.error
    outcomes = apply_import(fresh, preview_import([config], []))
    assert all(o.status == "added" for o in outcomes), [o.error for o in outcomes]
    return fresh


@pytest.mark.skipif(sys.platform == "win32", reason="file modes are POSIX")
@pytest.mark.parametrize("fmt", ["claude-code", "cursor", "vscode", "claude-desktop"])
def test_round_trip_with_secrets_loses_nothing(
    fmt: str, ours: list[McpServerRecord], catalog: ServerCatalog, tmp_path: Path
) -> None:
    result = export_servers(ours, fmt, catalog.vault, with_secrets=True)
    path = tmp_path / "export.json"
    write_export(result, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    fresh = _reimport(fmt, path, tmp_path)
    expected = {r.name: _launch(r, catalog.vault) for r in ours}
    if fmt == "claude-desktop":  # its file runs stdio servers only: the others are named, not lost silently
        assert result.skipped == ["remote", "events"]
        expected = {"github": expected["github"]}
    if fmt != "claude-code":  # only Claude Code's file has a timeout (ms)
        expected["github"]["timeout"] = None
        assert any("no timeout setting; 90 s left out" in w for w in result.warnings)
    got = {r.name: _launch(r, fresh.vault) for r in fresh.all()}
    assert got == expected
    assert all(not r.is_trusted for r in fresh.all())


def test_claude_code_file_is_the_mcp_config_shape(ours: list[McpServerRecord], catalog: ServerCatalog) -> None:
    data = export_servers(ours, "claude-code", catalog.vault).data
    assert data == {
        "mcpServers": {
            "github": {
                "type": "stdio",
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-github", "--flag=a b"],
                "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "LOG_LEVEL": "debug", "HOME_DIR": "${env:HOME}"},
                "timeout": 90000,
            },
            "remote": {
                "type": "http",
                "url": "https://mcp.example.com/mcp",
                "headers": {"Authorization": "${REMOTE_AUTHORIZATION}", "X-Team": "a"},
            },
            "events": {"type": "sse", "url": "http://127.0.0.1:8931/sse"},
        }
    }


@pytest.mark.skipif(sys.platform == "win32", reason="file modes are POSIX")
def test_placeholders_instead_of_secrets_and_reimport_keeps_them(
    ours: list[McpServerRecord], catalog: ServerCatalog, tmp_path: Path
) -> None:
    result = export_servers(ours, "cursor", catalog.vault)
    assert "ghp_real_secret" not in result.text and "tok-123" not in result.text
    assert result.placeholders == [
        {"server": "github", "field": "env.GITHUB_TOKEN", "placeholder": "${env:GITHUB_TOKEN}"},
        {"server": "remote", "field": "headers.Authorization", "placeholder": "${env:REMOTE_AUTHORIZATION}"},
    ]
    assert result.data["mcpServers"]["events"] == {"type": "sse", "url": "http://127.0.0.1:8931/sse"}
    assert "type" not in result.data["mcpServers"]["remote"]
    path = tmp_path / "mcp.json"
    write_export(result, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    fresh = _reimport("cursor", path, tmp_path)
    github = fresh.find("github")
    assert github.config.env["GITHUB_TOKEN"] == "${env:GITHUB_TOKEN}"
    config = read_config(ConfigLocation("cursor", path))
    assert config is not None
    (item,) = [i for i in preview_import([config], []).items if i.entry.name == "remote"]
    assert {"field": "headers.Authorization", "placeholder": "${env:REMOTE_AUTHORIZATION}", "kind": "env"} in (
        item.entry.placeholders
    )


def test_vscode_declares_an_input_per_secret(ours: list[McpServerRecord], catalog: ServerCatalog) -> None:
    result = export_servers(ours, "vscode", catalog.vault)
    assert result.data["servers"]["github"]["env"]["GITHUB_TOKEN"] == "${input:github-github_token}"
    assert result.data["servers"]["github"]["type"] == "stdio"
    assert result.data["inputs"] == [
        {
            "type": "promptString",
            "id": "github-github_token",
            "description": "GITHUB_TOKEN (environment variable) for github",
            "password": True,
        },
        {
            "type": "promptString",
            "id": "remote-authorization",
            "description": "Authorization (header) for remote",
            "password": True,
        },
    ]


def test_cwd_and_disabled_are_named_when_a_format_cannot_hold_them(catalog: ServerCatalog) -> None:
    record = _add(
        catalog, name="local", config={"command": "node", "args": ["s.js"], "cwd": "/srv/app"}, is_active=False
    )
    code = export_servers([record], "claude-code", catalog.vault)
    assert "cwd" not in code.data["mcpServers"]["local"]
    assert 'local: Claude Code has no working-folder setting; cwd "/srv/app" left out' in code.warnings
    assert "local: disabled here, but Claude Code has no off switch" in code.warnings
    assert export_servers([record], "vscode", catalog.vault).data["servers"]["local"]["cwd"] == "/srv/app"


def test_write_merges_into_an_existing_app_file(
    ours: list[McpServerRecord], catalog: ServerCatalog, tmp_path: Path
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps({"theme": "dark", "mcpServers": {"mine": {"command": "x"}, "events": {"command": "old"}}})
    )
    replaced = write_export(export_servers(ours, "claude-code", catalog.vault), path)
    assert replaced == ["events"]
    data = json.loads(path.read_text())
    assert data["theme"] == "dark" and list(data["mcpServers"]) == ["mine", "events", "github", "remote"]
    assert data["mcpServers"]["events"]["url"] == "http://127.0.0.1:8931/sse"
    assert (tmp_path / "settings.json.bak").exists()


def test_write_refuses_a_broken_existing_file(
    ours: list[McpServerRecord], catalog: ServerCatalog, tmp_path: Path
) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{\n  "mcpServers": {,\n}')
    with pytest.raises(JsonInputError) as caught:
        write_export(export_servers(ours, "cursor", catalog.vault), path)
    assert (caught.value.line, caught.value.column) == (2, 18)
    assert str(path) in str(caught.value)
    assert path.read_text() == '{\n  "mcpServers": {,\n}'


def test_unknown_or_read_only_formats_are_refused(ours: list[McpServerRecord]) -> None:
    with pytest.raises(KeyError, match="unknown app 'notepad'"):
        export_servers(ours, "notepad")
    with pytest.raises(ValueError, match="cannot export to Jan"):
        export_servers(ours, "jan")
    with pytest.raises(ValueError, match="with_secrets needs the secret vault"):
        export_servers(ours, "cursor", None, with_secrets=True)
