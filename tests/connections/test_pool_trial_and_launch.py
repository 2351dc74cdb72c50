"""Trying unsaved servers, secrets marked on update, the environment servers get, built-in servers."""

from __future__ import annotations

import os
import stat
import sys

import pytest

from elftia_desktop.application import servers
from elftia_desktop.connections.events import ConnectionStateChanged
from elftia_desktop.connections.service import McpService
from elftia_desktop.core import login_env
from elftia_desktop.core.models import ConnectionState, McpServerInput
from elftia_desktop.core.paths import managed_bin_dir
from tests.connections.pool_helpers import add_server, stdio_input

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120), pytest.mark.usefixtures("memory_servers")]


async def test_test_config_tries_an_unsaved_server(service: McpService) -> None:
    states: list[ConnectionStateChanged] = []
    service.events.on(ConnectionStateChanged, states.append)
    result = await service.test_config(stdio_input("draft", "basic", trusted=False))
    assert result.success, result.error
    assert {"echo", "add", "env"} <= set(result.tools)
    assert await service.list_servers() == []  # nothing saved
    assert states == []  # the saved servers' states are untouched

    broken = await service.test_config(stdio_input("draft", "exit3"))
    assert not broken.success and "exited with code 3" in (broken.error or "")


async def test_test_config_resolves_the_edited_servers_secrets(service: McpService) -> None:
    server_id = await add_server(service, stdio_input("keeper", "basic", config={"env": {"MY_TOKEN": "t-1"}}))
    record = service.catalog.get(server_id)
    assert record.config.env == {"MY_TOKEN": "${secret:MY_TOKEN}"}
    draft = McpServerInput.model_validate(record.to_json_dict() | {"name": "keeper (edited)"})
    assert (await service.test_config(draft, server_id)).success
    assert not (await service.test_config(draft)).success  # without the id the reference cannot resolve


async def test_update_marks_chosen_keys_secret(service: McpService) -> None:
    server_id = await add_server(service, stdio_input("plain", "basic"))
    edit = {"config": {"env": {"TENANT": "acme-private"}}, "secretKeys": ["TENANT"], "isTrusted": True}  # as the form
    result = await servers.update(service, server_id, edit)
    assert result.success and result.server is not None
    assert result.server.config.env == {"TENANT": "${secret:TENANT}"}
    assert "acme-private" not in service.catalog.store.path.read_text()
    assert "secretKeys" not in result.server.to_json_dict()
    call = await service.call_tool(server_id, "env", {"name": "TENANT"})
    assert call.content[0]["text"] == "acme-private"


@pytest.mark.real_process
async def test_servers_get_certificate_and_proxy_settings(service: McpService, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("SOME_PRIVATE_THING", "not for servers")
    login_env.reset_cache()
    server_id = await add_server(service, stdio_input("envy", "basic"))
    seen = {
        name: (await service.call_tool(server_id, "env", {"name": name})).content[0]["text"]
        for name in ("SSL_CERT_FILE", "HTTPS_PROXY", "SOME_PRIVATE_THING")
    }
    assert seen["SSL_CERT_FILE"] == "/etc/ssl/certs/ca-certificates.crt"
    assert seen["HTTPS_PROXY"] == "http://proxy.invalid:3128"
    assert seen["SOME_PRIVATE_THING"] == ""  # not passed: the SDK default environment leaves it out
    login_env.reset_cache()


async def test_managed_tools_folder_is_searched_after_the_system_path(service: McpService) -> None:
    bin_dir = managed_bin_dir()
    bin_dir.mkdir(parents=True)
    wrapper = bin_dir / "elftia-test-runtime"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    server = stdio_input("managed", "basic")
    server.config.command = "elftia-test-runtime"
    server_id = await add_server(service, server)
    assert service.connection_state(server_id) is ConnectionState.CONNECTED
    path = login_env.search_path({"PATH": "/usr/bin"})
    assert path.split(os.pathsep)[-1] == str(bin_dir)


async def test_builtin_server_starts_with_this_interpreter_whatever_was_stored(service: McpService) -> None:
    server = McpServerInput(
        name="Clock",
        config={"command": "/old/venv/bin/python", "args": ["-m", "elftia_desktop.builtin_servers.clock"]},
        install_source="builtin",
        is_trusted=True,
    )
    server_id = await add_server(service, server)
    tools = await service.list_server_tools(server_id)
    assert tools and all(t.server_name == "Clock" for t in tools)
