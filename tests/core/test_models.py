"""The data model: validation messages a person understands, and JSON round trips."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from elftia_desktop.core.config_store import describe_validation_error
from elftia_desktop.core.models import (
    Agent,
    ConnectionState,
    DependencyCheckResult,
    DependencyInstallResult,
    McpActionResult,
    MCPCallToolResponse,
    McpDiscoverResult,
    McpMode,
    McpServerConfig,
    McpServerInput,
    McpServerJsonInput,
    McpServerRecord,
    McpServerRemoveInput,
    McpServerScope,
    McpServerTransport,
    McpTestResult,
    MCPTool,
    McpToolListing,
)

ORIGINAL_RECORD = {
    "id": "mcp_1717000000000_ab12cd",
    "name": "GitHub",
    "scope": "user",
    "type": "stdio",
    "config": {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${secret:GITHUB_PERSONAL_ACCESS_TOKEN}"},
    },
    "isActive": False,
    "isTrusted": True,
    "disabledTools": ["delete_repository"],
    "disabledAutoApproveTools": ["create_issue"],
    "installSource": "protocol",
    "createdAt": 1717000000000,
    "updatedAt": 1717000001000,
}


def error_text(exc: pytest.ExceptionInfo[ValidationError]) -> str:
    return describe_validation_error(exc.value)


def test_original_camel_case_record_loads_and_round_trips() -> None:
    record = McpServerRecord.model_validate(ORIGINAL_RECORD)
    assert record.is_active is False
    assert record.disabled_tools == ["delete_repository"]
    assert record.install_source == "protocol"
    assert McpServerRecord.model_validate(record.to_json_dict()) == record
    dumped = record.to_json_dict()
    for key in ("isActive", "isTrusted", "disabledTools", "disabledAutoApproveTools", "installSource", "createdAt"):
        assert key in dumped


def test_defaults_of_a_new_record() -> None:
    record = McpServerRecord(name="x", type=McpServerTransport.STDIO, config=McpServerConfig(command="uvx"))
    assert record.id.startswith("mcp_")
    _, stamp, rand = record.id.split("_")
    assert stamp.isdigit() and len(rand) == 8
    assert record.scope is McpServerScope.USER
    assert record.is_active is True and record.is_trusted is False
    assert record.install_source == "manual"
    assert record.created_at > 1_600_000_000_000


def test_unknown_fields_from_a_newer_version_are_kept() -> None:
    data = dict(ORIGINAL_RECORD, futureField={"a": 1})
    data["config"] = dict(data["config"], sandbox=True)  # type: ignore[arg-type]
    dumped = McpServerRecord.model_validate(data).to_json_dict()
    assert dumped["futureField"] == {"a": 1}
    assert dumped["config"]["sandbox"] is True


def test_stdio_needs_a_command() -> None:
    with pytest.raises(ValidationError) as exc:
        McpServerInput(name="a", type="stdio", config={"args": ["x"]})
    assert "config.command: a stdio server needs a command to run" in error_text(exc)


@pytest.mark.parametrize("transport", ["sse", "http"])
@pytest.mark.parametrize("url", [None, "", "localhost:3000/mcp", "ftp://host/mcp", "/relative/path"])
def test_remote_servers_need_an_absolute_http_url(transport: str, url: str | None) -> None:
    with pytest.raises(ValidationError) as exc:
        McpServerInput(name="a", type=transport, config={"url": url} if url is not None else {})
    assert "config.url" in error_text(exc)


def test_names_must_not_be_blank() -> None:
    with pytest.raises(ValidationError) as exc:
        McpServerInput(name="   ", config={"command": "npx"})
    assert "name: a server needs a name" in error_text(exc)


def test_env_keys_must_be_variable_names() -> None:
    with pytest.raises(ValidationError) as exc:
        McpServerInput(name="a", config={"command": "npx", "env": {"1BAD-KEY": "v"}})
    text = error_text(exc)
    assert "config.env" in text and '"1BAD-KEY"' in text


def test_header_names_must_be_tokens() -> None:
    with pytest.raises(ValidationError) as exc:
        McpServerInput(name="a", type="http", config={"url": "https://x.dev/mcp", "headers": {"Bad Header": "v"}})
    assert '"Bad Header"' in error_text(exc)


def test_local_scope_needs_a_project_folder() -> None:
    with pytest.raises(ValidationError) as exc:
        McpServerInput(name="a", scope="local", config={"command": "npx"})
    assert "projectPath" in error_text(exc)


def test_timeout_number_means_tool_call_timeout() -> None:
    config = McpServerConfig.model_validate({"command": "x", "timeout": 60})
    assert config.timeout is not None and config.timeout.call == 60
    assert config.to_json_dict()["timeout"] == {"call": 60.0}
    with pytest.raises(ValidationError):
        McpServerConfig.model_validate({"command": "x", "timeout": -1})
    with pytest.raises(ValidationError):
        McpServerConfig.model_validate({"command": "x", "timeout": True})
    phases = McpServerConfig.model_validate({"command": "x", "timeout": {"connect": 5, "list": 6, "call": 7}})
    assert phases.timeout is not None and phases.timeout.list_ == 6
    assert phases.to_json_dict()["timeout"] == {"connect": 5.0, "list": 6.0, "call": 7.0}


def test_unknown_transport_is_named() -> None:
    with pytest.raises(ValidationError) as exc:
        McpServerInput(name="a", type="websocket", config={"url": "ws://x"})
    assert "type" in error_text(exc)


EXAMPLES = [
    McpServerJsonInput.model_validate({"json": '{"a": {"command": "x"}}', "onConflict": "rename"}),
    McpServerRemoveInput(id="mcp_1_a"),
    McpActionResult(success=True, message="ok", results=[McpActionResult(success=False, error="bad")]),
    McpTestResult(success=True, tools=["a"], duration_ms=12.5),
    McpDiscoverResult(success=True, tools=[{"name": "a"}], resource_templates=[{"uriTemplate": "x://{id}"}]),
    MCPTool(id="mcp__s__t", server_id="mcp_1_a", server_name="s", name="t"),
    McpToolListing(tools=[MCPTool(id="mcp__s__t", server_id="i", server_name="s", name="t")], errors={"j": "down"}),
    MCPCallToolResponse(is_error=False, content=[{"type": "text", "text": "hi"}], structured_content={"v": 1}),
    DependencyCheckResult(command="npx", installed=True, path="/usr/bin/npx", version="10.0.0"),
    DependencyInstallResult(command="uvx", success=True, log=["done"]),
    Agent(name="Writer", mcp_mode=McpMode.MANUAL, selected_servers=["mcp_1_a"], selected_tools={"mcp_1_a": ["t"]}),
]


@pytest.mark.parametrize("model", EXAMPLES, ids=lambda m: type(m).__name__)
def test_every_model_round_trips_through_camel_case_json(model: object) -> None:
    cls = type(model)
    dumped = model.to_json_dict()  # type: ignore[attr-defined]
    assert not any("_" in key for key in dumped if key != "json"), dumped
    assert cls.model_validate(dumped) == model  # type: ignore[attr-defined]


def test_enums_have_the_original_values() -> None:
    original = ["disconnected", "connecting", "connected", "error"]
    assert [s.value for s in ConnectionState] == [*original, "auth_required"]  # + issue 16's OAuth state
    assert [m.value for m in McpMode] == ["disabled", "auto", "manual"]
    assert MCPTool(id="a", server_id="b", server_name="c", name="d").to_json_dict()["type"] == "mcp"
