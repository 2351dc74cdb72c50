"""Importing each app's documented file shape into our catalog: normalised, untrusted, secrets moved."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.models import McpServerInput, McpServerRecord
from elftia_desktop.integrations.detector import ConfigLocation, read_config
from elftia_desktop.integrations.importer import ImportPreview, apply_import, preview_import

SAMPLES = Path(__file__).parent / "samples"


def _preview(app: str, sample: str, catalog: ServerCatalog, scope: str = "user", project: str | None = None):
    config = read_config(ConfigLocation(app, SAMPLES / sample, scope, project))
    assert config is not None and config.error is None
    return preview_import([config], catalog.all())


def _import_all(app: str, sample: str, catalog: ServerCatalog, **kwargs: Any) -> dict[str, McpServerRecord]:
    outcomes = apply_import(catalog, _preview(app, sample, catalog, **kwargs))
    assert [o.status for o in outcomes] == ["added"] * len(outcomes), [o.error for o in outcomes]
    return {r.name: r for r in catalog.all()}


def _secret(catalog: ServerCatalog, record: McpServerRecord) -> tuple[dict[str, str], dict[str, str]]:
    return catalog.vault.resolve(record)


def test_every_imported_record_is_untrusted_and_of_unknown_source(catalog: ServerCatalog) -> None:
    records = _import_all("claude-desktop", "claude_desktop_config.json", catalog)
    assert set(records) == {"filesystem", "brave-search"}
    for record in records.values():
        assert record.is_trusted is False and record.trusted_launch is None
        assert record.install_source == "unknown"
        assert record.model_extra and record.model_extra["importedFrom"]["app"] == "claude-desktop"
    files = records["filesystem"]
    assert files.type.value == "stdio" and files.config.command == "npx"
    assert files.config.args[-2:] == ["/Users/username/Desktop", "/Users/username/Downloads"]


def test_secret_looking_values_go_to_the_keyring(catalog: ServerCatalog, isolated_data_dir: Path) -> None:
    records = _import_all("claude-desktop", "claude_desktop_config.json", catalog)
    brave = records["brave-search"]
    assert brave.config.env == {"BRAVE_API_KEY": "${secret:BRAVE_API_KEY}"}
    assert _secret(catalog, brave)[0] == {"BRAVE_API_KEY": "BSA-test-key-123"}
    assert "BSA-test-key-123" not in (isolated_data_dir / "mcp-config.json").read_text()


def test_claude_code_user_local_and_timeout_in_ms(catalog: ServerCatalog, tmp_path: Path) -> None:
    text = (SAMPLES / "claude.json").read_text().replace("PROJECT_DIR", str(tmp_path))
    (tmp_path / "claude.json").write_text(text)
    config = read_config(ConfigLocation("claude-code", tmp_path / "claude.json"))
    assert config is not None
    apply_import(catalog, preview_import([config], []))
    records = {r.name: r for r in catalog.all()}
    assert records["sentry"].type.value == "http" and records["sentry"].scope.value == "user"
    airtable = records["airtable"]
    assert airtable.config.timeout is not None and airtable.config.timeout.call == 5.0
    stripe = records["stripe"]
    assert (stripe.scope.value, stripe.project_path) == ("local", str(tmp_path))
    assert stripe.config.headers == {"Authorization": "${secret:Authorization}"}
    assert _secret(catalog, stripe)[1] == {"Authorization": "Bearer sk_test_123"}


def test_project_mcp_json_keeps_expansion_placeholders(catalog: ServerCatalog, tmp_path: Path) -> None:
    preview = _preview("claude-code", "project.mcp.json", catalog, "project", str(tmp_path))
    items = {i.entry.name: i.entry for i in preview.items}
    assert items["api-server"].error == (
        'mcpServers.api-server: url: "${API_BASE_URL:-https://api.example.com}/mcp" starts with a placeholder; '
        "Elftia needs an absolute http(s) URL here, so write the real address before importing"
    )
    assert items["issues"].placeholders == [
        {"field": "headers.Authorization", "placeholder": "${API_KEY}", "kind": "variable"}
    ]
    outcomes = apply_import(catalog, preview)
    assert [(o.name, o.status) for o in outcomes] == [
        ("api-server", "failed"),
        ("issues", "added"),
        ("shared-db", "added"),
    ]
    records = {r.name: r for r in catalog.all()}
    assert records["issues"].config.headers == {"Authorization": "Bearer ${API_KEY}"}
    assert records["shared-db"].config.args[-1] == "${DB_DSN}"
    assert records["shared-db"].scope.value == "local" and records["shared-db"].project_path == str(tmp_path)


def test_cursor_env_placeholder_kept_and_reported(catalog: ServerCatalog) -> None:
    preview = _preview("cursor", "cursor_mcp.json", catalog)
    userjot = next(i for i in preview.items if i.entry.name == "userjot").to_json_dict()
    assert userjot["transport"] == "http"
    assert userjot["placeholders"] == [
        {"field": "headers.Authorization", "placeholder": "${env:USERJOT_API_TOKEN}", "kind": "env"}
    ]
    apply_import(catalog, preview)
    records = {r.name: r for r in catalog.all()}
    assert records["userjot"].config.headers == {"Authorization": "Bearer ${env:USERJOT_API_TOKEN}"}
    assert records["github"].config.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "${secret:GITHUB_PERSONAL_ACCESS_TOKEN}"}


def test_vscode_servers_inputs_and_comments(catalog: ServerCatalog) -> None:
    preview = _preview("vscode", "vscode_mcp.json", catalog)
    perplexity = next(i for i in preview.items if i.entry.name == "Perplexity").entry
    assert {"field": "env.PERPLEXITY_API_KEY", "placeholder": "${input:perplexity-key}", "kind": "input"} in (
        perplexity.placeholders
    )
    assert not any("not declared" in w for w in perplexity.warnings)
    assert any("envFile" in w for w in perplexity.warnings)
    apply_import(catalog, preview)
    records = {r.name: r for r in catalog.all()}
    assert records["Perplexity"].config.env == {"PERPLEXITY_API_KEY": "${input:perplexity-key}"}
    assert records["Perplexity"].config.model_extra == {"envFile": "${workspaceFolder}/.env"}
    assert (
        records["Github"].type.value == "http" and records["Github"].config.url == "https://api.githubcopilot.com/mcp/"
    )
    assert records["fetch"].config.cwd == "${workspaceFolder}"


def test_vscode_undeclared_input_is_warned(tmp_path: Path, catalog: ServerCatalog) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"servers": {"x": {"type": "stdio", "command": "y", "env": {"K": "${input:nope}"}}}}))
    config = read_config(ConfigLocation("vscode", path))
    assert config is not None
    (item,) = preview_import([config], []).items
    assert "${input:nope} is not declared in the file's 'inputs'" in item.entry.warnings


def test_cline_types_disabled_auto_approve_and_timeout(catalog: ServerCatalog) -> None:
    preview = _preview("cline", "cline_mcp_settings.json", catalog)
    weather = next(i for i in preview.items if i.entry.name == "weather").to_json_dict()
    assert weather["autoApprove"] == ["get_forecast"]
    assert any("auto-approved these tools: get_forecast" in w for w in weather["warnings"])
    apply_import(catalog, preview)
    records = {r.name: r for r in catalog.all()}
    assert records["local-server"].is_active is True
    assert records["local-server"].model_extra and records["local-server"].model_extra["autoApprove"] == [
        "tool1",
        "tool2",
    ]
    assert records["weather"].is_active is False
    assert records["weather"].config.timeout is not None and records["weather"].config.timeout.call == 120
    assert records["weather"].disabled_auto_approve_tools == []
    assert records["remote-streamable"].type.value == "http"
    assert records["legacy-sse"].type.value == "sse"
    assert records["legacy-http"].type.value == "http"
    assert "transportType" not in (records["legacy-http"].config.model_extra or {})
    stored = json.loads(catalog.store.path.read_text())
    weather_json = next(r for r in stored["mcpServers"] if r["name"] == "weather")
    assert weather_json["autoApprove"] == ["get_forecast"] and weather_json["isActive"] is False


def test_windsurf_server_url_is_http(catalog: ServerCatalog) -> None:
    records = _import_all("windsurf", "windsurf_mcp_config.json", catalog)
    assert records["zapier"].type.value == "http"
    assert records["zapier"].config.url == "https://actions.zapier.com/mcp/YOUR_MCP_KEY/sse"
    assert records["github"].config.command == "docker"


def test_lmstudio_remote_with_auth_header(catalog: ServerCatalog) -> None:
    records = _import_all("lmstudio", "lmstudio_mcp.json", catalog)
    hf = records["hf-mcp-server"]
    assert hf.type.value == "http" and hf.config.headers == {"Authorization": "${secret:Authorization}"}
    assert _secret(catalog, hf)[1] == {"Authorization": "Bearer hf_lmstudio_token"}


def test_gemini_url_kinds_timeout_ms_and_exclude_tools(catalog: ServerCatalog) -> None:
    preview = _preview("gemini", "gemini_settings.json", catalog)
    tools = next(i for i in preview.items if i.entry.name == "pythonTools").entry
    assert any("Gemini CLI trusted this server" in w for w in tools.warnings)
    assert {p["placeholder"] for p in tools.placeholders} == {"$DB_CONNECTION_STRING", "${EXTERNAL_API_KEY}"}
    apply_import(catalog, preview)
    records = {r.name: r for r in catalog.all()}
    python_tools = records["pythonTools"]
    assert python_tools.config.cwd == "./mcp-servers/python"
    assert python_tools.config.timeout is not None and python_tools.config.timeout.call == 15.0
    assert python_tools.disabled_tools == ["delete_database"]
    assert python_tools.config.env == {"DATABASE_URL": "$DB_CONNECTION_STRING", "API_KEY": "${EXTERNAL_API_KEY}"}
    assert python_tools.is_trusted is False
    assert records["github"].type.value == "http" and records["github"].config.timeout.call == 5.0  # type: ignore[union-attr]
    assert records["sseServer"].type.value == "sse"
    assert records["sseServer"].config.model_extra == {"includeTools": ["search"]}


def test_mcp_inspector_types(catalog: ServerCatalog) -> None:
    records = _import_all("mcp-inspector", "inspector_mcp.json", catalog)
    assert {n: r.type.value for n, r in records.items()} == {"everything": "stdio", "my-sse": "sse", "my-http": "http"}
    assert records["everything"].config.env == {"hello": "Hello MCP!"}


def test_jan_active_flag_and_unknown_keys_kept(catalog: ServerCatalog) -> None:
    preview = _preview("jan", "jan_mcp_config.json", catalog)
    browser = next(i for i in preview.items if i.entry.name == "Jan Browser MCP").entry
    assert "kept fields Elftia does not use: official" in browser.warnings
    apply_import(catalog, preview)
    records = {r.name: r for r in catalog.all()}
    assert records["olostep"].is_active is False and records["exa"].is_active is True
    assert records["exa"].type.value == "http" and records["exa"].config.url == "https://mcp.exa.ai/mcp"
    assert records["Jan Browser MCP"].config.model_extra == {"official": True}
    assert records["olostep"].config.env == {"OLOSTEP_API_KEY": "${secret:OLOSTEP_API_KEY}"}


@pytest.mark.parametrize(
    ("entry", "error"),
    [
        ({"command": "npx", "args": "-y server"}, 'args: expected a list of strings, got the string "-y server"'),
        ({"command": "npx", "env": ["A=1"]}, "env: expected an object of string values, got a list"),
        ({"command": ["npx"]}, "command: expected a string, got a list"),
        ({"url": "https://x/mcp", "disabled": "yes"}, 'disabled: expected true or false, got the string "yes"'),
        ({"command": "npx", "timeout": "60"}, 'timeout: expected a number, got the string "60"'),
        ({"command": "npx", "env": {"A": {"b": 1}}}, "env.A: expected a string, got an object"),
        ({"type": "websocket", "url": "wss://x"}, 'type: "websocket" is not a transport'),
        ({"transportType": "ws", "url": "https://x"}, 'transportType: "ws" is not a transport'),
        ({"args": ["x"]}, "config.url: a Streamable HTTP server needs a URL"),
        ("npx server", 'expected an object with "command" or "url", got the string "npx server"'),
    ],
)
def test_wrong_types_are_named_and_other_entries_still_import(
    tmp_path: Path, catalog: ServerCatalog, entry: Any, error: str
) -> None:
    path = tmp_path / "cline_mcp_settings.json"
    path.write_text(
        json.dumps({"mcpServers": {"broken": entry, "fine": {"command": "uvx", "args": ["mcp-server-time"]}}})
    )
    config = read_config(ConfigLocation("cline", path))
    assert config is not None
    preview = preview_import([config], [])
    broken = preview.items[0].entry
    assert broken.server is None and broken.error is not None
    assert broken.error.startswith("mcpServers.broken: ") and error in broken.error
    outcomes = apply_import(catalog, preview)
    assert [(o.name, o.status) for o in outcomes] == [("broken", "failed"), ("fine", "added")]


def test_numbers_in_env_are_converted_with_a_warning(tmp_path: Path, catalog: ServerCatalog) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"db": {"command": "x", "env": {"PORT": 5432, "DEBUG": True}}}}))
    config = read_config(ConfigLocation("cursor", path))
    assert config is not None
    (item,) = preview_import([config], []).items
    assert item.entry.server is not None and item.entry.server.config.env == {"PORT": "5432", "DEBUG": "true"}
    assert 'env.PORT: the number/boolean 5432 was taken as the string "5432"' in item.entry.warnings


def _existing(catalog: ServerCatalog) -> McpServerRecord:
    record = catalog.add(
        McpServerInput(name="GitHub", config={"command": "old-github", "env": {"GITHUB_TOKEN": "old-secret"}})
    )
    assert record is not None
    return record


def _cursor_preview(catalog: ServerCatalog) -> ImportPreview:
    preview = _preview("cursor", "cursor_mcp.json", catalog)
    assert next(i for i in preview.items if i.entry.name == "github").conflict == "GitHub"
    return preview


def test_conflict_rename(catalog: ServerCatalog) -> None:
    old = _existing(catalog)
    outcomes = apply_import(catalog, _cursor_preview(catalog), "rename")
    assert [(o.name, o.status, o.server_name) for o in outcomes] == [
        ("github", "renamed", "github (2)"),
        ("userjot", "added", "userjot"),
    ]
    names = {r.name: r for r in catalog.all()}
    assert names["GitHub"].id == old.id and names["github (2)"].config.command == "docker"


def test_conflict_skip(catalog: ServerCatalog) -> None:
    old = _existing(catalog)
    outcomes = apply_import(catalog, _cursor_preview(catalog), "skip")
    assert [(o.name, o.status) for o in outcomes] == [("github", "skipped"), ("userjot", "added")]
    assert [r.name for r in catalog.all()] == ["GitHub", "userjot"]
    assert catalog.find("GitHub").config.command == "old-github" and catalog.find("GitHub").id == old.id


def test_conflict_replace_drops_the_old_secrets(catalog: ServerCatalog) -> None:
    old = _existing(catalog)
    outcomes = apply_import(catalog, _cursor_preview(catalog), "replace")
    assert [(o.name, o.status) for o in outcomes] == [("github", "replaced"), ("userjot", "added")]
    new = catalog.find("github")
    assert new.id != old.id and new.config.command == "docker" and new.is_trusted is False
    assert catalog.vault.load(old.id, "env", "GITHUB_TOKEN") is None
    assert catalog.vault.resolve(new)[0] == {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_cursor_secret"}


def test_conflict_policy_per_name_and_within_one_import(catalog: ServerCatalog, tmp_path: Path) -> None:
    _existing(catalog)
    second = tmp_path / "mcp.json"
    second.write_text(json.dumps({"mcpServers": {"userjot": {"url": "https://other.example.com/mcp"}}}))
    files = [
        read_config(ConfigLocation("cursor", SAMPLES / "cursor_mcp.json")),
        read_config(ConfigLocation("cursor", second)),
    ]
    preview = preview_import([f for f in files if f], catalog.all())
    assert [i.conflict for i in preview.items] == ["GitHub", None, "userjot"]
    outcomes = apply_import(catalog, preview, {"github": "skip", "userjot": "rename"})
    assert [(o.status, o.server_name) for o in outcomes] == [
        ("skipped", None),
        ("added", "userjot"),
        ("renamed", "userjot (2)"),
    ]


def test_trust_flag_marks_records_trusted(catalog: ServerCatalog) -> None:
    apply_import(catalog, _preview("windsurf", "windsurf_mcp_config.json", catalog), trust=True)
    record = catalog.find("github")
    assert record.is_trusted is True and record.trusted_launch == {
        "transport": "stdio",
        "command": "docker",
        "args": record.config.args,
        "cwd": None,
        "env": record.config.env,
        "sandbox": None if record.sandbox is None else record.sandbox.fingerprint(),  # sandboxed where one works
    }


def test_preview_selects_names_and_lists_file_errors(tmp_path: Path, catalog: ServerCatalog) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"mcpServers": {')
    files = [
        read_config(ConfigLocation("jan", SAMPLES / "jan_mcp_config.json")),
        read_config(ConfigLocation("jan", broken)),
    ]
    preview = preview_import([f for f in files if f], [], names=["EXA"])
    data = preview.to_json_dict()
    assert [s["name"] for s in data["servers"]] == ["exa"]
    assert data["servers"][0]["runs"] == "https://mcp.exa.ai/mcp"
    (error,) = data["fileErrors"]
    assert error["path"] == str(broken) and (error["line"], error["column"]) == (1, 17)
