"""Helpers for the gateway tests: a config with real test servers, and the gateway as a subprocess.

The gateway is ``python -m elftia_desktop.cli serve`` on the test's data folder, driven by the
SDK's ``ClientSession`` over stdio (``stdio_client``) or Streamable HTTP.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
from keyring.backends.fail import Keyring as NoKeyring
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from elftia_desktop.core.catalog import ServerCatalog
from elftia_desktop.core.config_store import ConfigStore
from elftia_desktop.core.models import McpServerInput, McpServerRecord
from elftia_desktop.core.secrets import SecretVault
from tests.helpers.cli_runner import run_cli
from tests.servers.serve_http import server_command

REPO = Path(__file__).resolve().parents[2]


def open_catalog(data_dir: Path) -> ServerCatalog:
    """The catalog the gateway subprocess reads (secrets in the 0600 file, as without a keyring)."""
    return ServerCatalog(ConfigStore(data_dir / "mcp-config.json"), SecretVault(NoKeyring(), data_dir / "secrets.json"))


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
"""A raw JSON-RPC ``initialize`` of an app speaking the 2025-11-25 handshake."""
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
"""The headers of a raw Streamable HTTP POST."""


def add_stdio(
    catalog: ServerCatalog, name: str, server: str, *, trusted: bool = True, **fields: Any
) -> McpServerRecord:
    """Add test server ``server`` over stdio under ``name``."""
    command = server_command(server)
    config = {"command": command[0], "args": command[1:]} | fields.pop("config", {})
    record = catalog.add(McpServerInput(name=name, type="stdio", config=config, is_trusted=trusted, **fields))
    assert record is not None
    return record


def gateway_env(data_dir: Path) -> dict[str, str]:
    """The environment of a gateway subprocess on ``data_dir``."""
    return dict(os.environ) | {
        "ELFTIA_DATA_DIR": str(data_dir),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "PYTHONPATH": str(REPO),
    }


def gateway_argv(*args: str) -> list[str]:
    """``python -m elftia_desktop.cli serve ARGS``."""
    return [sys.executable, "-m", "elftia_desktop.cli", "serve", *args]


class Inbox:
    """What the gateway sent the client besides responses: notifications and log messages."""

    def __init__(self) -> None:
        self.notifications: list[Any] = []
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self._changed = anyio.Event()

    async def on_message(self, message: Any) -> None:
        if not isinstance(message, Exception):
            self.notifications.append(message)
            self._changed.set()

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)
        self._changed.set()

    async def wait_for(self, check: Callable[[], bool], limit: float = 15.0) -> None:
        """Wait until ``check()`` is true (re-checked on every arrival), at most ``limit`` seconds."""
        with anyio.fail_after(limit):
            while not check():
                self._changed = anyio.Event()
                await self._changed.wait()

    def count(self, kind: type[Any]) -> int:
        """How many notifications of ``kind`` arrived."""
        return sum(isinstance(n, kind) for n in self.notifications)


@asynccontextmanager
async def stdio_gateway(data_dir: Path, *args: str, **callbacks: Any) -> AsyncIterator[tuple[ClientSession, Inbox]]:
    """An initialized client session on a gateway subprocess (closed, with the gateway, at the end)."""
    inbox = Inbox()
    params = StdioServerParameters(command=sys.executable, args=gateway_argv(*args)[1:], env=gateway_env(data_dir))
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, message_handler=inbox.on_message, logging_callback=inbox.on_log, **callbacks) as s,
    ):
        await s.initialize()
        yield s, inbox


def text_of(result: types.CallToolResult) -> str:
    """The text blocks of a tool result, joined."""
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def process_alive(pid: int) -> bool:
    """Whether a process with this pid exists (and is not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


def processes_with_env(marker: str) -> list[int]:
    """Pids of this user's processes whose environment holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


async def poll(check: Callable[[], bool], limit: float = 15.0) -> bool:
    """Check every 50 ms until ``check()`` is true or ``limit`` seconds passed; the last answer."""
    deadline = time.monotonic() + limit
    while not check() and time.monotonic() < deadline:  # noqa: ASYNC110 - files and /proc send no events
        await anyio.sleep(0.05)
    return check()


def gateway_token_of(data_dir: Path) -> str:
    """``elftia-mcp gateway token`` on ``data_dir`` (the token the HTTP gateway checks), run in process."""
    done = run_cli("gateway", "token", data_dir=data_dir)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@contextmanager
def http_gateway(
    data_dir: Path, *args: str, env: dict[str, str] | None = None, stderr: int = subprocess.DEVNULL
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``serve --http 0 ARGS`` as a subprocess; yields its URL and the process (stopped at the end).

    ``stderr=subprocess.PIPE`` keeps what it printed for the test to read while the process is open.
    """
    process = subprocess.Popen(
        gateway_argv("--http", "0", *args),
        env=env or gateway_env(data_dir),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"at (http://\S+)", line)
        assert match, f"the gateway printed {line!r} (exit code {process.poll()})"
        yield match.group(1), process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


@asynccontextmanager
async def http_session(url: str, token: str | None, **callbacks: Any) -> AsyncIterator[tuple[ClientSession, Inbox]]:
    """An initialized client session over Streamable HTTP with ``Authorization: Bearer token``."""
    inbox = Inbox()
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as client,
        streamable_http_client(url, http_client=client) as streams,
        ClientSession(
            streams[0], streams[1], message_handler=inbox.on_message, logging_callback=inbox.on_log, **callbacks
        ) as s,
    ):
        await s.initialize()
        yield s, inbox
